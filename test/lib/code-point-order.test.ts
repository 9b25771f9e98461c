import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodeUnit, codePointKey, compareCodePoints, sortByCodePoint } from '../../src/lib/code-point-order.ts';

/** The order the databases give text under a binary collation: that of its UTF-8 bytes. */
const utf8Order = (left: string, right: string) => Math.sign(Buffer.compare(Buffer.from(left), Buffer.from(right)));

describe('code-point order', () => {
  it('puts characters above U+FFFF after U+E000..U+FFFF, where code units put them before', () => {
    const names = ['/\u{1F600}', '/\uFF21', '/\uE000', '/\uD7FF', '/z', '/B', '/a', '/', '/\u{10000}', '/\u{10FFFF}'];
    expect([...names].sort(compareCodePoints)).toEqual(['/', '/B', '/a', '/z', '/\uD7FF', '/\uE000', '/\uFF21', '/\u{10000}', '/\u{1F600}', '/\u{10FFFF}']);
    expect('/\u{1F600}' < '/\uFF21').toBe(true);
  });

  it('agrees with the order of the UTF-8 bytes on any well-formed strings', () => {
    // Characters from the whole range, and mostly a few near the boundaries, so that long common prefixes and close calls are frequent.
    const character = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.constantFrom('a', 'B', '\uD7FF', '\uE000', '\uFF21', '\uFFFF', '\u{10000}', '\u{1F600}', '\u{10FFFF}'),
    );
    const text = fc.array(character, { maxLength: 6 }).map((characters) => characters.join(''));
    fc.assert(
      fc.property(text, text, (left, right) => Math.sign(compareCodePoints(left, right)) === utf8Order(left, right)),
      { numRuns: 2000 },
    );
    // Keys compared by code unit, with JavaScript's `<`, give the same order.
    fc.assert(
      fc.property(text, text, (left, right) => byCodeUnit(codePointKey(left), codePointKey(right)) === utf8Order(left, right)),
      { numRuns: 2000 },
    );
  });

  it('keys a name with no code unit from U+D800 up as itself', () => {
    for (const name of ['', '/docs/a', '/\uD7FF', 'Ü日本\u0000']) expect(codePointKey(name)).toBe(name);
    expect(codePointKey('/\uFF21')).not.toBe('/\uFF21');
  });

  it('sorts by the order given first, then by name in code-point order, leaving the list as it was', () => {
    const rows = [
      { views: 1, name: '/b' },
      { views: 2, name: '/\u{1F600}' },
      { views: 1, name: '/B' },
      { views: 2, name: '/\uFF21' },
      { views: 1, name: '/a' },
    ];
    const sorted = sortByCodePoint(
      rows,
      (a, b) => b.views - a.views,
      (row) => row.name,
    );
    expect(sorted.map((row) => row.name)).toEqual(['/\uFF21', '/\u{1F600}', '/B', '/a', '/b']);
    expect(rows[0].name).toBe('/b');
  });

  it('sorts a list as the UTF-8 bytes order it, with or without characters above U+FFFF in it', () => {
    const character = fc.oneof(fc.constantFrom('a', 'B', '/', '\uFF21'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    const text = fc.array(character, { maxLength: 4 }).map((characters) => characters.join(''));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 20 }), (texts) => {
        expect(
          sortByCodePoint(
            texts,
            () => 0,
            (text) => text,
          ),
        ).toEqual([...texts].sort(utf8Order));
      }),
      { numRuns: 500 },
    );
  });
});
