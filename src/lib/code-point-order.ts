/**
 * Orders two strings by Unicode code point, which is the order of their UTF-8 bytes: the order SQLite's
 * `BINARY` and PostgreSQL's `"C"` collations give text (see `codePointCollation` in storage/dialect.ts),
 * so a ranking sorted here and one sorted by the database break ties alike. JavaScript's `<` compares
 * UTF-16 code units instead, which puts a character above U+FFFF (stored as two surrogates, D800..DFFF)
 * before one in E000..FFFF such as U+FF21. For one comparison; to sort, compare codePointKey's keys.
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

/** Code units from D800 up, where the orders of code units and code points part (one unit at a time: no `u` flag). */
const highUnits = /[\uD800-\uFFFF]/g;
const highUnit = /[\uD800-\uFFFF]/;

/** JavaScript's `<` as a comparator: code-point order on codePointKey's keys. */
export const byCodeUnit = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/**
 * A key whose order by `<` is `text`'s order by code point: `text` itself when none of its code units is
 * from D800 up (each unit is then a code point, below the surrogates), else `text` with those units moved as
 * compareCodePoints moves them (E000..FFFF down to D800..F7FF, surrogates up to F800..FFFF). Keys made
 * once per name let a sort compare with native `<` whatever the names hold: comparing in a JavaScript loop
 * made a hundred thousand tied pages sort twice as slowly once one of them held an emoji.
 */
export function codePointKey(text: string): string {
  if (!highUnit.test(text)) return text;
  return text.replace(highUnits, (unit) => String.fromCharCode(codePointRank(unit.charCodeAt(0))));
}

/**
 * `items` ordered by `first`, then by `name` in code-point order: each name's key is made once and kept
 * beside its item, so a tie costs a native comparison of two strings (faster than looking names up by id
 * in the comparator). A new array.
 */
export function sortByCodePoint<Item>(items: Item[], first: (a: Item, b: Item) => number, name: (item: Item) => string): Item[] {
  const keyed = items.map((item) => ({ item, key: codePointKey(name(item)) }));
  keyed.sort((a, b) => first(a.item, b.item) || byCodeUnit(a.key, b.key));
  return keyed.map(({ item }) => item);
}
