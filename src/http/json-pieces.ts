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
 *
 * The same scan counts the array's elements (scanMember), so a body of more than a caller takes can be
 * refused before any of it is parsed, also when it has to be parsed whole for a BOM, an escaped key or the
 * member given more than once.
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

/** Where the string that opens at `open` ends: the next quote not escaped by an odd run of backslashes, or -1. */
function stringEnd(bytes: Uint8Array, open: number): number {
  for (let end = bytes.indexOf(quote, open + 1); end !== -1; end = bytes.indexOf(quote, end + 1)) {
    let backslashes = 0;
    while (bytes[end - 1 - backslashes] === backslash) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
  return -1;
}

/** An array's elements, scanned but not parsed: its byte ranges cut between elements, its closing bracket, how many elements it holds. */
interface ElementRuns {
  runs: [number, number][];
  close: number;
  count: number;
}

/**
 * The array that opens just before `start`, scanned (see ElementRuns); null when it does not close, closes
 * with a brace, or nests too deeply. `count` is the number of elements JSON.parse would give a valid array:
 * none when only spacing lies between the brackets, else one more than its top-level commas.
 */
function elementRuns(bytes: Uint8Array, start: number, outerDepth: number): ElementRuns | null {
  const runs: [number, number][] = [];
  let runStart = start;
  let depth = 0;
  let commas = 0;
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
      const count = commas > 0 || skipWhitespace(bytes, start) < index ? commas + 1 : 0;
      return { runs, close: index, count };
    } else if (code === comma && depth === 0) {
      commas++;
      if (index - runStart >= pieceBytes) {
        runs.push([runStart, index]);
        runStart = index + 1;
      }
    }
  }
  return null;
}

/** Whether `bytes` open with a UTF-8 byte-order mark, which decoding the body drops. */
const byteOrderMark = (bytes: Uint8Array) => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

const sameBytes = (left: Uint8Array, right: Uint8Array) => left.length === right.length && left.every((code, index) => code === right[index]);

/** Whether the JSON string `key` (its bytes, quotes included), written with escapes, reads as `member`. */
function escapedKeyIs(key: Uint8Array, member: string): boolean {
  if (!key.includes(backslash)) return false;
  try {
    return JSON.parse(utf8.decode(key)) === member;
  } catch {
    return false;
  }
}

/** A body read as `{"<member>": [elements]}`, scanned but not parsed (see scanMember). */
export interface MemberScan {
  /** How many elements its array holds: the last one's, when the member is given more than once, as JSON.parse keeps the last. */
  count: number;
  /** The array cut between elements, when the body may be parsed in pieces (see above); null when it is to be parsed whole. */
  runs: [number, number][] | null;
}

/**
 * Scans `bytes` as an object whose every member is `member` and an array, as JSON.parse reads the body's
 * decoded text (a leading BOM dropped, keys compared once their escapes are read): how many elements the
 * member would hold and, for the documented shape, the array's pieces. Null for any other shape, a
 * nesting deeper than `maxJsonDepth`, or a body of at most `pieceBytes` (parsed whole in well under a
 * millisecond, whatever it holds). Nothing is parsed but an escaped key, so an element that is not JSON
 * is counted like any other: the count is exact for a body that parses, and a bound for one that does not.
 */
export function scanMember(bytes: Uint8Array, member: string): MemberScan | null {
  if (bytes.length <= pieceBytes) return null;
  const literal = new TextEncoder().encode(JSON.stringify(member));
  const bom = byteOrderMark(bytes);
  let index = skipWhitespace(bytes, bom ? 3 : 0);
  if (bytes[index] !== openBrace) return null;
  const arrays: ElementRuns[] = [];
  let exact = !bom;
  do {
    index = skipWhitespace(bytes, index + 1);
    if (bytes[index] !== quote) return null;
    const keyEnd = stringEnd(bytes, index);
    if (keyEnd === -1) return null;
    const key = bytes.subarray(index, keyEnd + 1);
    const plain = sameBytes(key, literal);
    if (!plain && !escapedKeyIs(key, member)) return null;
    exact &&= plain;
    index = skipWhitespace(bytes, keyEnd + 1);
    if (bytes[index] !== colon) return null;
    index = skipWhitespace(bytes, index + 1);
    if (bytes[index] !== openBracket) return null;
    const array = elementRuns(bytes, index + 1, 2);
    if (array === null) return null;
    arrays.push(array);
    index = skipWhitespace(bytes, array.close + 1);
  } while (bytes[index] === comma);
  if (bytes[index] !== closeBrace || skipWhitespace(bytes, index + 1) !== bytes.length) return null;
  const last = arrays[arrays.length - 1];
  return { count: last.count, runs: exact && arrays.length === 1 ? last.runs : null };
}

/**
 * Parses `bytes` as `{"<member>": [elements]}` in pieces (see above): the value JSON.parse of the whole
 * would give, a failure it would give, or null for a body to parse whole. `scan` is the body's scanMember, when already made.
 */
export function parseMemberInPieces(
  bytes: Uint8Array,
  member: string,
  scan = scanMember(bytes, member),
): { value: Record<string, unknown[]> } | { failure: JsonFailure } | null {
  const runs = scan?.runs;
  if (!runs) return null;
  const elements: unknown[] = [];
  for (const [start, stop] of runs) {
    const text = utf8.decode(bytes.subarray(start, stop));
    // `[]` alone is an empty array; an empty run beside others is an element missing between commas.
    if (text.trim() === '') {
      if (runs.length === 1) break;
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
