/**
 * Orders two strings by Unicode code point, which is the order of their UTF-8 bytes: the order SQLite's
 * `BINARY` and PostgreSQL's `"C"` collations give text (see `codePointCollation` in storage/dialect.ts),
 * so a ranking sorted here and one sorted by the database break ties alike. JavaScript's `<` compares
 * UTF-16 code units instead, which puts a character above U+FFFF (stored as two surrogates, D800..DFFF)
 * before one in E000..FFFF such as U+FF21.
 */
export function compareCodePoints(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a === b) continue;
    // Below D800 code units and code points agree; from there on, surrogates stand for code points above every unit of E000..FFFF.
    return a >= 0xd800 && b >= 0xd800 ? codePointRank(a) - codePointRank(b) : a - b;
  }
  return left.length - right.length;
}

/** A code unit from D800 up, moved so that surrogates sort after E000..FFFF. */
const codePointRank = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

const surrogate = /[\uD800-\uDFFF]/;
const byCodeUnit = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/**
 * A comparator by code point for `texts`: JavaScript's `<` when none of them holds a surrogate (each code unit
 * is then a code point, so the orders agree, and `<` sorts a hundred thousand tied pages about three times
 * faster), else `compareCodePoints`.
 */
export function codePointOrder(texts: Iterable<string>): (left: string, right: string) => number {
  for (const text of texts) if (surrogate.test(text)) return compareCodePoints;
  return byCodeUnit;
}
