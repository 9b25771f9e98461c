/**
 * The country of a client address, from an openly licensed IP-to-country database: ip-location-db's
 * `geo-whois-asn-country` (RIR delegations and whois with geofeeds and ASN data, published by
 * sapics; data CC BY 4.0 by the NRO, see docs/analytics.md), shipped as the npm package
 * `@ip-location-db/geo-whois-asn-country`. `quire analytics update-countries` downloads newer files
 * into `ip-country/` beside this file, which are then preferred. The tables load on first use (IPv6
 * only once an IPv6 address comes), and a lookup is a table read and a binary search of a handful
 * of ranges (IPv6 answers are cached by address).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIPv6 } from 'node:net';

export const countryFiles = { v4: 'geo-whois-asn-country-ipv4-num.csv', v6: 'geo-whois-asn-country-ipv6-num.csv' } as const;
/** Where `quire analytics update-countries` writes newer copies of the files. */
export const updatedCountryDirectory = new URL('./ip-country/', import.meta.url);
export const packageName = '@ip-location-db/geo-whois-asn-country';

interface V4Table {
  starts: Uint32Array;
  ends: Uint32Array;
  codes: string[];
}

/**
 * Per 16-bit prefix, the number of ranges that start below it (`below[p]` for addresses `p << 16`
 * onwards, `below[65536]` all of them): an address's range is among the few between its prefix's
 * bounds, so a lookup is a table read and a binary search of a handful of ranges, not of all 300,000.
 */
function prefixIndex(starts: Uint32Array): Uint32Array {
  const below = new Uint32Array(65537);
  let range = 0;
  for (let prefix = 0; prefix <= 65536; prefix++) {
    const bound = prefix * 65536;
    while (range < starts.length && starts[range] < bound) range++;
    below[prefix] = range;
  }
  return below;
}
/** IPv6 bounds as four 32-bit words per range, most significant first. */
interface V6Table {
  starts: Uint32Array;
  ends: Uint32Array;
  codes: string[];
}

/** Where a file is read from: the updated copy when there is one, else the package's. */
function countryFile(name: string, directory: URL | undefined): string {
  if (directory) return new URL(name, directory).pathname;
  const updated = new URL(name, updatedCountryDirectory);
  if (existsSync(updated)) return updated.pathname;
  return createRequire(import.meta.url).resolve(`${packageName}/${name}`);
}

/** A code as the tables keep it: two capital letters, else null (a malformed line is refused by the parser). */
const codePattern = /^[A-Z]{2}$/;

interface Range<Bound> {
  start: Bound;
  end: Bound;
  code: string;
}

/**
 * Ranges made disjoint: the published files hold some ranges nested in others (a more specific
 * assignment inside a block), and the more specific one is the answer there. Ranges are taken by
 * start, a wider one before a narrower one of the same start, and each cuts what it overlaps out of
 * those before it.
 */
export function disjointRanges<Bound extends number | bigint>(ranges: Range<Bound>[], one: Bound): Range<Bound>[] {
  const sorted = ranges.toSorted((a, b) => (a.start !== b.start ? (a.start < b.start ? -1 : 1) : a.end === b.end ? 0 : a.end > b.end ? -1 : 1));
  const result: Range<Bound>[] = [];
  const before = (value: Bound) => (value - (one as never)) as unknown as Bound;
  const after = (value: Bound) => (value + (one as never)) as unknown as Bound;
  for (const range of sorted) {
    const overlapped: Range<Bound>[] = [];
    while (result.length > 0 && result[result.length - 1].end >= range.start) overlapped.unshift(result.pop()!);
    const rights: Range<Bound>[] = [];
    for (const piece of overlapped) {
      if (piece.start < range.start) result.push({ start: piece.start, end: piece.end < range.start ? piece.end : before(range.start), code: piece.code });
      if (piece.end > range.end) rights.push({ start: piece.start > range.end ? piece.start : after(range.end), end: piece.end, code: piece.code });
    }
    result.push(range, ...rights);
  }
  return result;
}

function parseLines<Bound extends number | bigint>(text: string, bound: (value: string) => Bound | null): Range<Bound>[] {
  const ranges: Range<Bound>[] = [];
  let index = 0;
  for (const line of text.split('\n')) {
    index++;
    if (line.length === 0) continue;
    const [start, end, code] = line.split(',');
    const from = bound(start ?? '');
    const to = bound(end ?? '');
    if (from === null || to === null || from > to || !codePattern.test(code ?? ''))
      throw new Error(`line ${index} is not "start,end,CC": ${line.slice(0, 80)}`);
    ranges.push({ start: from, end: to, code });
  }
  if (ranges.length === 0) throw new Error('the file holds no range');
  return ranges;
}

/**
 * Parses an IPv4 numeric file (`start,end,CC` per line); throws on a malformed line. One pass over
 * the characters into typed arrays (the file has a third of a million lines and loads on first use),
 * then made disjoint as `disjointRanges` does.
 */
export function parseV4(text: string): V4Table {
  const capacity = text.length / 10 + 1;
  let starts = new Uint32Array(capacity);
  let ends = new Uint32Array(capacity);
  const codes: string[] = [];
  let count = 0;
  let sorted = true;
  let position = 0;
  let line = 0;
  const fail = (): never => {
    throw new Error(`line ${line} is not "start,end,CC": ${text.slice(position, text.indexOf('\n', position)).slice(0, 80)}`);
  };
  const number = (stop: number): number => {
    let value = 0;
    let digits = 0;
    for (let char = text.charCodeAt(position); char >= 48 && char <= 57; char = text.charCodeAt(++position)) {
      value = value * 10 + (char - 48);
      digits++;
    }
    if (digits === 0 || digits > 10 || value > 0xffffffff || text.charCodeAt(position) !== stop) fail();
    position++;
    return value;
  };
  while (position < text.length) {
    line++;
    if (text.charCodeAt(position) === 10) {
      position++;
      continue;
    }
    const lineStart = position;
    const from = number(44);
    const to = number(44);
    const code = text.slice(position, position + 2);
    position += 2;
    if (from > to || !codePattern.test(code) || (position < text.length && text.charCodeAt(position) !== 10)) {
      position = lineStart;
      fail();
    }
    position++;
    if (count > 0 && (from < starts[count - 1] || (from === starts[count - 1] && to > ends[count - 1]))) sorted = false;
    starts[count] = from;
    ends[count] = to;
    codes.push(code);
    count++;
  }
  if (count === 0) throw new Error('the file holds no range');
  if (!sorted) {
    const ranges = disjointRanges(
      codes.map((code, index) => ({ start: starts[index], end: ends[index], code })),
      1,
    );
    return {
      starts: Uint32Array.from(ranges, (range) => range.start),
      ends: Uint32Array.from(ranges, (range) => range.end),
      codes: ranges.map((range) => range.code),
    };
  }
  // Sorted already (as published): the same cutting as `disjointRanges`, on typed arrays.
  const outStarts = new Uint32Array(count * 2);
  const outEnds = new Uint32Array(count * 2);
  const outCodes: string[] = [];
  let size = 0;
  const pending: [number, number, string][] = [];
  for (let index = 0; index < count; index++) {
    const from = starts[index];
    const to = ends[index];
    pending.length = 0;
    while (size > 0 && outEnds[size - 1] >= from) {
      size--;
      pending.unshift([outStarts[size], outEnds[size], outCodes.pop()!]);
    }
    const rights: [number, number, string][] = [];
    for (const [pieceStart, pieceEnd, pieceCode] of pending) {
      if (pieceStart < from) {
        outStarts[size] = pieceStart;
        outEnds[size] = Math.min(pieceEnd, from - 1);
        outCodes.push(pieceCode);
        size++;
      }
      if (pieceEnd > to) rights.push([Math.max(pieceStart, to + 1), pieceEnd, pieceCode]);
    }
    outStarts[size] = from;
    outEnds[size] = to;
    outCodes.push(codes[index]);
    size++;
    for (const [pieceStart, pieceEnd, pieceCode] of rights) {
      outStarts[size] = pieceStart;
      outEnds[size] = pieceEnd;
      outCodes.push(pieceCode);
      size++;
    }
  }
  starts = outStarts.slice(0, size);
  ends = outEnds.slice(0, size);
  return { starts, ends, codes: outCodes };
}

const mask32 = 0xffffffffn;
function words(value: bigint, into: Uint32Array, at: number): void {
  into[at] = Number((value >> 96n) & mask32);
  into[at + 1] = Number((value >> 64n) & mask32);
  into[at + 2] = Number((value >> 32n) & mask32);
  into[at + 3] = Number(value & mask32);
}

/** Parses an IPv6 numeric file (128-bit decimal bounds); throws on a malformed line. */
export function parseV6(text: string): V6Table {
  const ranges = disjointRanges(
    parseLines(text, (value) => (/^\d{1,39}$/.test(value) && BigInt(value) < 1n << 128n ? BigInt(value) : null)),
    1n,
  );
  const starts = new Uint32Array(ranges.length * 4);
  const ends = new Uint32Array(ranges.length * 4);
  ranges.forEach((range, index) => {
    words(range.start, starts, index * 4);
    words(range.end, ends, index * 4);
  });
  return { starts, ends, codes: ranges.map((range) => range.code) };
}

/** -1, 0 or 1 as the address's words compare with the four words of `table` at `index`. */
function compareWords(address: Uint32Array, table: Uint32Array, index: number): number {
  for (let word = 0; word < 4; word++) {
    const a = address[word];
    const b = table[index * 4 + word];
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

/** A dotted-quad IPv4 address as a number, or null when `ip` is not one (checked by hand: this runs per new address). */
function dottedQuad(ip: string): number | null {
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let index = 0; index <= ip.length; index++) {
    const char = index === ip.length ? 46 : ip.charCodeAt(index);
    if (char === 46) {
      if (digits === 0 || part > 255 || (digits > 1 && ip.charCodeAt(index - digits) === 48)) return null;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (char >= 48 && char <= 57 && digits < 3) {
      part = part * 10 + (char - 48);
      digits++;
    } else return null;
  }
  return parts === 4 ? value : null;
}

function parseIPv4(ip: string): number {
  const parts = ip.split('.');
  return ((Number(parts[0]) << 24) >>> 0) + (Number(parts[1]) << 16) + (Number(parts[2]) << 8) + Number(parts[3]);
}

/** An IPv6 address as four words, or an IPv4 number when it is IPv4-mapped (`::ffff:1.2.3.4`). */
function parseIPv6(ip: string): Uint32Array | number {
  let text = ip.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const groups = new Array<number>(8).fill(0);
  let tail: string[] = [];
  let head: string[];
  const double = text.indexOf('::');
  if (double >= 0) {
    head = text.slice(0, double).split(':').filter(Boolean);
    tail = text
      .slice(double + 2)
      .split(':')
      .filter(Boolean);
  } else head = text.split(':');
  const expand = (parts: string[]) => {
    const values: number[] = [];
    for (const part of parts) {
      if (part.includes('.')) {
        const v4 = parseIPv4(part);
        values.push(v4 >>> 16, v4 & 0xffff);
      } else values.push(parseInt(part, 16));
    }
    return values;
  };
  const first = expand(head);
  const last = expand(tail);
  first.forEach((value, index) => (groups[index] = value));
  last.forEach((value, index) => (groups[8 - last.length + index] = value));
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff)
    return ((groups[6] << 16) >>> 0) + groups[7];
  const result = new Uint32Array(4);
  for (let word = 0; word < 4; word++) result[word] = ((groups[word * 2] << 16) >>> 0) + groups[word * 2 + 1];
  return result;
}

/**
 * Private and reserved IPv4 blocks (RFC 1918, loopback, link-local, shared, multicast and above): no country, whatever a file
 * says. Plain comparisons: a loop over a table of blocks with destructuring cost as much as the range search itself.
 */
function privateV4(address: number): boolean {
  const first = address >>> 24;
  return (
    first === 0 ||
    first === 10 ||
    first === 127 ||
    first >= 224 ||
    address >>> 22 === 0x64400000 >>> 22 ||
    address >>> 16 === 0xa9fe ||
    address >>> 20 === 0xac100000 >>> 20 ||
    address >>> 16 === 0xc0a8
  );
}

/** The database of one directory (the updated copy or the package's), loaded as lookups need it. */
export class CountryDatabase {
  #v4: (V4Table & { below: Uint32Array }) | undefined;
  #v6: V6Table | undefined;
  /** IPv6 answers by address text (bounded): an IPv6 lookup compares four words a step. */
  readonly #cache = new Map<string, string | null>();
  readonly #directory: URL | undefined;

  constructor(directory?: URL) {
    this.#directory = directory;
  }

  /** The country of `ip` (ISO 3166-1 alpha-2), or null when the address is not valid or in no range (private, reserved). */
  country(ip: string | undefined): string | null {
    if (ip === undefined || ip === '') return null;
    // An IPv4 address is searched every time (about 0.15 µs): a map of answers by address text cost more, hashing
    // each text and, past its bound, being cleared and grown again (1.2 µs a lookup with a million visitors).
    const v4 = dottedQuad(ip);
    if (v4 !== null) return this.#inV4(v4);
    const cached = this.#cache.get(ip);
    if (cached !== undefined) return cached;
    const found = this.#notDottedQuad(ip);
    // Bounded: a flood of distinct addresses costs lookups again, never memory.
    if (this.#cache.size >= 200_000) this.#cache.clear();
    this.#cache.set(ip, found);
    return found;
  }

  /** The lookup itself, without the per-address cache. */
  lookupUncached(ip: string): string | null {
    return this.#lookup(ip);
  }

  #lookup(ip: string): string | null {
    const v4 = dottedQuad(ip);
    return v4 !== null ? this.#inV4(v4) : this.#notDottedQuad(ip);
  }

  /** An address that is not a dotted quad: IPv6 (an IPv4-mapped one included), else none. */
  #notDottedQuad(ip: string): string | null {
    if (!isIPv6(ip)) return null;
    const address = parseIPv6(ip);
    if (typeof address === 'number') return this.#inV4(address);
    // Unique local (fc00::/7), link-local (fe80::/10), loopback and unspecified addresses belong to no country.
    if ((address[0] & 0xfe000000) === 0xfc000000 || (address[0] & 0xffc00000) === 0xfe800000 || (address[0] === 0 && address[1] === 0 && address[2] === 0))
      return null;
    const table = (this.#v6 ??= parseV6(readFileSync(countryFile(countryFiles.v6, this.#directory), 'utf8')));
    let low = 0;
    let high = table.codes.length - 1;
    // The last range starting at or below the address.
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (compareWords(address, table.starts, middle) >= 0) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found >= 0 && compareWords(address, table.ends, found) <= 0 ? table.codes[found] : null;
  }

  #inV4(address: number): string | null {
    if (privateV4(address)) return null;
    if (this.#v4 === undefined) {
      const table = parseV4(readFileSync(countryFile(countryFiles.v4, this.#directory), 'utf8'));
      this.#v4 = { ...table, below: prefixIndex(table.starts) };
    }
    const { starts, ends, codes, below } = this.#v4;
    // The last range starting at or below the address: one starting in the address's prefix, else the last before it.
    const prefix = address >>> 16;
    let low = below[prefix];
    let high = below[prefix + 1] - 1;
    let found = low - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (starts[middle] <= address) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found >= 0 && address <= ends[found] ? codes[found] : null;
  }
}

/** The database ingestion uses. */
export const countries = new CountryDatabase();

/** `countries.country` as a function to hand on (model/packed-batch.ts looks countries up where batches are packed). */
export const lookUpCountry = (ip: string | undefined): string | null => countries.country(ip);
