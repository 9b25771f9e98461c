import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ndjsonLineCount, ndjsonLines, parseMemberInPieces, scanMember } from '../../src/http/json-pieces.ts';
import { parseJsonText } from '../../src/http/json.ts';

/** What parsing the decoded text whole gives: the reference every piecewise parse must equal. */
const whole = (bytes: Uint8Array) => parseJsonText(new TextDecoder().decode(bytes));
const bytesOf = (text: string) => new TextEncoder().encode(text);

/** Events of about 200 bytes with escapes, quotes, commas and brackets inside strings, and multi-byte text. */
const events = Array.from({ length: 1500 }, (_, index) => ({
  path: `/docs/page-${index}`,
  userAgent: `Mozilla/5.0 ("quoted", [bracketed] {braced}) \\ tail ${index % 7 === 0 ? 'Ü日本' : ''}`,
  referrer: index % 3 === 0 ? null : `https://example.com/?q=${index},${index}`,
  nested: { list: [index, [index + 1, { deep: ['a,b', '"]}'] }]] },
}));
const body = JSON.stringify({ events });

describe('JSON bodies parsed in pieces', () => {
  it('gives the value of parsing the whole text, in pieces, for the documented shape with any spacing', () => {
    for (const text of [body, JSON.stringify({ events }, null, 2), ` \r\n${body}\n\t `]) {
      const bytes = bytesOf(text);
      expect(bytes.length).toBeGreaterThan(128 * 1024);
      const pieces = parseMemberInPieces(bytes, 'events');
      expect(pieces).toEqual(whole(bytes));
      expect(pieces).toEqual({ value: { events } });
    }
  });

  it('leaves a small body, another shape or a doubtful one to the whole parse', () => {
    const small = bytesOf(JSON.stringify({ events: events.slice(0, 10) }));
    const doubtful = [
      JSON.stringify({ other: 1, events }),
      JSON.stringify({ events, other: 1 }),
      `{"events":${JSON.stringify(events)},"events":[]}`,
      `\uFEFF${body}`,
      body.replace('"events"', '"\\u0065vents"'),
      `${body} x`,
      `${body}}`,
      JSON.stringify({ items: events }),
      JSON.stringify(events),
    ];
    expect(parseMemberInPieces(small, 'events')).toBeNull();
    for (const text of doubtful) {
      expect(parseMemberInPieces(bytesOf(text), 'events')).toBeNull();
    }
  });

  it('refuses what the whole parse refuses, however the pieces fall', () => {
    const inner = JSON.stringify(events).slice(1, -1);
    const invalid = [
      `{"events":[${inner},]}`,
      // A piece cut after a long element, with nothing but spacing after it: alone it would parse as `[]`.
      `{"events":[${JSON.stringify('x'.repeat(70_000))},  ]}`,
      `{"events":[,${inner}]}`,
      `{"events":[${inner.replace('},{', '},,{')}]}`,
      `{"events":[${inner.replace('},{', '},   \n ,{')}]}`,
      `{"events":[${inner}, tru]}`,
      `{"events":[${inner.replace('"path"', "'path'")}]}`,
      `{"events":[${inner}`,
      `{"events":[${inner}}`,
      `{"events":[${inner.replace(/,/g, ' ,')}, 1 2]}`,
    ];
    for (const text of invalid) {
      const bytes = bytesOf(text);
      const reference = whole(bytes);
      expect(reference).toEqual({ failure: 'not-json' });
      expect(parseMemberInPieces(bytes, 'events') ?? reference).toEqual(reference);
    }
  });

  it('leaves a body nested too deeply to the whole parse, which refuses it before parsing', () => {
    const deep = `${'['.repeat(40)}1${']'.repeat(40)}`;
    const bytes = bytesOf(`{"events":[${JSON.stringify(events).slice(1, -1)},${deep}]}`);
    expect(parseMemberInPieces(bytes, 'events')).toBeNull();
    expect(whole(bytes)).toEqual({ failure: 'too-deep' });
  });

  it('reads an empty array of any length as empty', () => {
    const bytes = bytesOf(`{"events":[${' '.repeat(100_000)}]}`);
    expect(parseMemberInPieces(bytes, 'events')).toEqual({ value: { events: [] } });
  });
});

describe('the elements of a JSON body counted before it is parsed', () => {
  /** How many events parsing the whole text gives: the reference every count must equal. */
  const parsedCount = (bytes: Uint8Array) => (whole(bytes) as { value: { events: unknown[] } }).value.events.length;
  const inner = JSON.stringify(events).slice(1, -1);
  const padding = JSON.stringify('x'.repeat(70_000));

  it('counts as many elements as parsing the whole text gives, whatever the spacing, strings and nesting, parsing none', () => {
    const bodies = [
      body,
      JSON.stringify({ events }, null, 2),
      ` \r\n${body}\n\t `,
      // Commas, brackets and escaped quotes inside strings and nested values; spacing around every comma.
      `{ "events" : [ ${padding} , "a,b" ,\n"[\\"]" , [1,[2,3]] , {"a":[",",{"b":"}"}]} , 0 ,\t-1.5e3, true , null , "" , [] , {} ] }`,
      `{"events":[${padding}]}`,
      `{"events":[${' '.repeat(70_000)}]}`,
      `{"events":[${'\n'.repeat(70_000)}[]]}`,
      `{"events":[${'0,'.repeat(40_000)}0]}`,
      // Shapes parsed whole, counted all the same: a byte-order mark, an escaped key, the member twice (the last one counts).
      `\uFEFF${body}`,
      body.replace('"events"', '"\\u0065vents"'),
      `{"events":[${inner}], "ev\\u0065nts" : [1,2,3]}`,
      `{"events":[1,2,3],"events":[${inner}]}`,
      `{"events":[${inner}],"events":[]}`,
    ];
    const parse = vi.spyOn(JSON, 'parse');
    const counts = bodies.map((text) => scanMember(bytesOf(text), 'events')?.count);
    expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > 100)).toEqual([]);
    parse.mockRestore();
    expect(counts).toEqual(bodies.map((text) => parsedCount(bytesOf(text))));
    expect(counts.slice(0, 4)).toEqual([1500, 1500, 1500, 12]);
  });

  it('counts any array of JSON values, written with any indentation, as parsing it does', () => {
    const value = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(fc.array(value, { maxLength: 30 }), fc.constantFrom(undefined, 1, '\t', ' \r\n'), (values, indent) => {
        const bytes = bytesOf(JSON.stringify({ events: [...values, 'x'.repeat(70_000), ...values] }, null, indent));
        expect(scanMember(bytes, 'events')?.count).toBe(values.length * 2 + 1);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves to the whole parse a body it cannot count as that parse would read it, or a small one', () => {
    const doubtful = [
      JSON.stringify({ other: 1, events }),
      JSON.stringify({ events, other: 1 }),
      `{"events":1,"events":[${inner}]}`,
      `{"events":[${inner}],"events":"x"}`,
      `  \uFEFF${body}`,
      `\uFEFF\uFEFF${body}`,
      `${body} x`,
      `${body}}`,
      JSON.stringify({ items: events }),
      JSON.stringify(events),
      `{"events":[${inner},${'['.repeat(40)}1${']'.repeat(40)}]}`,
      `{"events":[${inner}`,
      JSON.stringify({ events: events.slice(0, 10) }),
    ];
    for (const text of doubtful) expect(scanMember(bytesOf(text), 'events'), text.slice(0, 40)).toBeNull();
  });
});

describe('NDJSON lines decoded one at a time', () => {
  it('gives the lines of the decoded text, dropping only a leading byte-order mark, and its nesting check', () => {
    const text = `\uFEFF{"a":1}\r\n\n  \n{"b":"Ü日本"}\n\uFEFF{"c":[1]}\n{"d":2}`;
    expect(ndjsonLines(bytesOf(text))).toEqual({ lines: ['{"a":1}\r', '{"b":"Ü日本"}', '\uFEFF{"c":[1]}', '{"d":2}'] });
    expect(ndjsonLines(bytesOf(`{"a":1}\n${'['.repeat(33)}\n`))).toEqual({ failure: 'too-deep' });
    expect(ndjsonLines(bytesOf(`"${'['.repeat(40)}\n{"a":1}`))).toEqual({ lines: [`"${'['.repeat(40)}`, '{"a":1}'] });
  });

  it('are counted on the bytes as the decoded text has them, blank lines (Unicode spacing too) left out', () => {
    const texts = [
      '',
      '\n\n',
      `\uFEFF{"a":1}\r\n\n  \n{"b":"Ü日本"}\n\uFEFF{"c":[1]}\n{"d":2}`,
      '\uFEFF\n\u00a0\u2003\n\t\v\f\r\n\u2028\n日本\n\u00a0x\n \n',
      `${'['.repeat(40)}\nnot json\n\u0000\n\u001c`,
    ];
    for (const text of texts) {
      expect(ndjsonLineCount(bytesOf(text)), JSON.stringify(text)).toBe(text.split('\n').filter((line) => line.trim() !== '').length);
    }
    // Bytes that are not UTF-8 decode to a replacement character: a line, as ndjsonLines keeps it.
    expect(ndjsonLineCount(Uint8Array.of(0xff, 0x0a, 0xc3))).toBe(2);
    expect(ndjsonLines(Uint8Array.of(0xff, 0x0a, 0xc3))).toEqual({ lines: ['\uFFFD', '\uFFFD'] });
  });
});
