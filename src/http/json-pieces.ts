import { maxJsonDepth, nestsTooDeep, type JsonFailure } from './json.ts';

/**
 * Large JSON bodies parsed without one large string.
 *
 * JSON.parse needs the whole text as one string, and V8 keeps every string of more than 128 KiB in its
 * large-object space, mapped afresh for each one and given back at the next collection. On this kind of
 * two-core virtual machine, where a first touch of a page is costly, decoding a 255 KB events body took
 * 0.8 ms, and the same bytes decoded 64 KiB at a time 0.03 ms: more than the JSON.parse of the body
 * itself. So a body shaped as the events API documents it, `{"<member>": [ ... ]}`, is cut between the
 * array's elements into pieces of about `pieceBytes`, and each piece is decoded and parsed on its own.
 *
 * The result is the one JSON.parse of the whole text gives, or null when the body has any other shape
 * (another member, a BOM, an escaped key, a nesting deeper than `maxJsonDepth`, text after the object):
 * the caller then parses it whole. Cuts fall only on commas between the array's elements, found by a scan
 * that skips strings, so every piece of a valid body is a valid array; an invalid body stays invalid in
 * pieces (an empty element, which alone would parse as `[]`, is refused here).
 */
const pieceBytes = 64 * 1024;

const [space, tab, newline, carriageReturn] = [0x20, 0x09, 0x0a, 0x0d];
const [quote, backslash, comma, colon] = [0x22, 0x5c, 0x2c, 0x3a];
const [openBracket, openBrace, closeBracket, closeBrace] = [0x5b, 0x7b, 0x5d, 0x7d];

const utf8 = new TextDecoder();

function skipWhitespace(bytes: Uint8Array, index: number): number {
  while (index < bytes.length) {
    const code = bytes[index];
    if (code !== space && code !== tab && code !== newline && code !== carriageReturn) break;
    index++;
  }
  return index;
}

/** The index after `expected` at `index` (after whitespace), or -1. */
function expect(bytes: Uint8Array, index: number, expected: Uint8Array): number {
  const start = skipWhitespace(bytes, index);
  for (let offset = 0; offset < expected.length; offset++) if (bytes[start + offset] !== expected[offset]) return -1;
  return start + expected.length;
}

/** Where the string that opens at `open` ends: the next quote not escaped by an odd run of backslashes, or -1. */
function stringEnd(bytes: Uint8Array, open: number): number {
  for (let end = bytes.indexOf(quote, open + 1); end !== -1; end = bytes.indexOf(quote, end + 1)) {
    let backslashes = 0;
    while (bytes[end - 1 - backslashes] === backslash) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
  return -1;
}

/**
 * The byte ranges of the array that opens just before `start`, cut between elements, and the index of
 * its closing bracket; null when it does not close, closes with a brace, or nests too deeply.
 */
function elementRuns(bytes: Uint8Array, start: number, outerDepth: number): { runs: [number, number][]; close: number } | null {
  const runs: [number, number][] = [];
  let runStart = start;
  let depth = 0;
  for (let index = start; index < bytes.length; index++) {
    const code = bytes[index];
    if (code === quote) {
      index = stringEnd(bytes, index);
      if (index === -1) return null;
    } else if (code === openBracket || code === openBrace) {
      if (outerDepth + ++depth > maxJsonDepth) return null;
    } else if (code === closeBracket || code === closeBrace) {
      if (depth > 0) {
        depth--;
        continue;
      }
      if (code !== closeBracket) return null;
      runs.push([runStart, index]);
      return { runs, close: index };
    } else if (code === comma && depth === 0 && index - runStart >= pieceBytes) {
      runs.push([runStart, index]);
      runStart = index + 1;
    }
  }
  return null;
}

/**
 * Parses `bytes` as `{"<member>": [elements]}` in pieces (see above): the value JSON.parse of the whole
 * would give, a failure it would give, or null for a body to parse whole.
 */
export function parseMemberInPieces(bytes: Uint8Array, member: string): { value: Record<string, unknown[]> } | { failure: JsonFailure } | null {
  if (bytes.length <= pieceBytes) return null;
  let index = expect(bytes, 0, Uint8Array.of(openBrace));
  if (index !== -1) index = expect(bytes, index, new TextEncoder().encode(JSON.stringify(member)));
  if (index !== -1) index = expect(bytes, index, Uint8Array.of(colon));
  if (index !== -1) index = expect(bytes, index, Uint8Array.of(openBracket));
  if (index === -1) return null;
  const array = elementRuns(bytes, index, 2);
  if (array === null) return null;
  const end = expect(bytes, array.close + 1, Uint8Array.of(closeBrace));
  if (end === -1 || skipWhitespace(bytes, end) !== bytes.length) return null;

  const elements: unknown[] = [];
  for (const [start, stop] of array.runs) {
    const text = utf8.decode(bytes.subarray(start, stop));
    // `[]` alone is an empty array; an empty run beside others is an element missing between commas.
    if (text.trim() === '') {
      if (array.runs.length === 1) break;
      return { failure: 'not-json' };
    }
    try {
      for (const element of JSON.parse(`[${text}]`) as unknown[]) elements.push(element);
    } catch {
      return { failure: 'not-json' };
    }
  }
  return { value: { [member]: elements } };
}

/**
 * NDJSON bytes as their lines' texts, each decoded on its own (no string of the whole body), with the
 * whole body's nesting check: the same lines and the same refusal as decoding the body and splitting it.
 * The first line drops a byte-order mark as decoding the whole body would; later lines keep theirs.
 */
export function ndjsonLines(bytes: Uint8Array): { lines: string[] } | { failure: JsonFailure } {
  const lines: string[] = [];
  const keepMark = new TextDecoder('utf-8', { ignoreBOM: true });
  for (let start = 0; start <= bytes.length;) {
    let end = bytes.indexOf(newline, start);
    if (end === -1) end = bytes.length;
    const line = (start === 0 ? utf8 : keepMark).decode(bytes.subarray(start, end));
    if (nestsTooDeep(line)) return { failure: 'too-deep' };
    if (line.trim() !== '') lines.push(line);
    start = end + 1;
  }
  return { lines };
}

/** A byte of ASCII spacing as `trim` removes it (tab, line feed, vertical tab, form feed, carriage return, space), or of a multi-byte character. */
const mayBeBlank = (code: number) => code === space || (code >= tab && code <= carriageReturn) || code >= 0x80;

/**
 * How many lines ndjsonLines gives, counted on the bytes without decoding or checking them, so a body
 * of too many can be refused before any line is parsed. A line with a byte that is neither ASCII
 * spacing nor part of a multi-byte character counts at once (an event's first byte, as a rule); only
 * a line without one is decoded, to see whether it is blank as `trim` sees it (Unicode spacing too).
 */
export function ndjsonLineCount(bytes: Uint8Array): number {
  let count = 0;
  for (let start = 0; start <= bytes.length;) {
    let end = bytes.indexOf(newline, start);
    if (end === -1) end = bytes.length;
    let index = start;
    while (index < end && mayBeBlank(bytes[index])) index++;
    if (index < end || utf8.decode(bytes.subarray(start, end)).trim() !== '') count++;
    start = end + 1;
  }
  return count;
}
