/**
 * A parsed batch as the reading thread sends it to the storing thread: one column per field, numbers
 * in typed arrays, and the texts most lines repeat (paths, user agents, referrers) sent once each.
 *
 * Why not the events themselves: a message of ten thousand small objects costs the receiving thread
 * about 1.7 µs an event to rebuild (structured clone), on the thread that is the import's bottleneck;
 * these columns cost about 0.3 µs, and every event of the batch shares one string per distinct path
 * and user agent, so the storing thread's dictionary lookups hash each of them once.
 *
 * The packing thread also looks up each event's country (`countryOf`): a lookup per event, keyed by
 * address, was a twentieth of the storing thread's work during ingestion, and the packing thread has
 * cores to spare.
 */
import type { MarkdownRequest } from './markdown-request.ts';
import type { PreparedEvent, SignedRequest } from './prepared-event.ts';
import type { Verification } from './verification.ts';

/** Validated events, and the byte offset after the last line they came from (0 where they came from no file). */
export interface ParsedBatch {
  events: PreparedEvent[];
  end: number;
}

export interface PackedBatch {
  count: number;
  end: number;
  at: Float64Array;
  /** -1 for no status. */
  status: Int32Array;
  markdown: Uint8Array;
  verification: Uint8Array;
  /** Distinct texts of the repeated columns below, which hold indexes into it (-1 for none). */
  texts: string[];
  path: Int32Array;
  userAgent: Int32Array;
  visitorAgent: Int32Array;
  referrer: Int32Array;
  utmSource: Int32Array;
  ip: (string | undefined)[];
  /** The country of each event's address (an index into `texts`, -1 for none), when packed with `countryOf`. */
  country: Int32Array | null;
  visitorId: (string | undefined)[];
  eventKey: (string | null)[];
  visitorHash: (string | undefined)[];
  /** The few events that carry a signed request, by index. */
  signed: [number, SignedRequest][];
}

/**
 * Packs a batch; with `countryOf` (the ingestion's country lookup, dimensions/countries.ts), each event's
 * country is looked up here and arrives with it (`PreparedEvent.country`).
 */
export function packBatch({ events, end }: ParsedBatch, countryOf?: (ip: string | undefined) => string | null): PackedBatch {
  const count = events.length;
  const texts: string[] = [];
  const indexes = new Map<string, number>();
  const text = (value: string | null | undefined): number => {
    if (value === null || value === undefined) return -1;
    let index = indexes.get(value);
    if (index === undefined) {
      index = texts.push(value) - 1;
      indexes.set(value, index);
    }
    return index;
  };
  const packed: PackedBatch = {
    count,
    end,
    at: new Float64Array(count),
    status: new Int32Array(count),
    markdown: new Uint8Array(count),
    verification: new Uint8Array(count),
    texts,
    path: new Int32Array(count),
    userAgent: new Int32Array(count),
    visitorAgent: new Int32Array(count),
    referrer: new Int32Array(count),
    utmSource: new Int32Array(count),
    ip: new Array(count),
    country: countryOf === undefined ? null : new Int32Array(count),
    visitorId: new Array(count),
    eventKey: new Array(count),
    visitorHash: new Array(count),
    signed: [],
  };
  events.forEach((event, index) => {
    packed.at[index] = event.at;
    packed.status[index] = event.status ?? -1;
    packed.markdown[index] = event.markdown;
    packed.verification[index] = event.verification;
    packed.path[index] = text(event.path);
    const userAgent = text(event.userAgent);
    packed.userAgent[index] = userAgent;
    // Nearly always the same string: no second lookup of a long text.
    packed.visitorAgent[index] = event.visitorKey.userAgent === event.userAgent ? userAgent : text(event.visitorKey.userAgent);
    packed.referrer[index] = text(event.referrer);
    packed.utmSource[index] = text(event.utmSource);
    packed.ip[index] = event.visitorKey.ip;
    if (packed.country !== null) packed.country[index] = text(countryOf!(event.visitorKey.ip));
    packed.visitorId[index] = event.visitorKey.visitorId;
    packed.eventKey[index] = event.eventKey;
    packed.visitorHash[index] = event.visitorHash;
    if (event.signed !== null) packed.signed.push([index, event.signed]);
  });
  return packed;
}

/** The buffers of a packed batch's typed columns: posted in a transfer list, they move to the receiving thread instead of being copied. */
export function packedBuffers(packed: PackedBatch): ArrayBuffer[] {
  const { at, status, markdown, verification, path, userAgent, visitorAgent, referrer, utmSource, country } = packed;
  const columns = [at, status, markdown, verification, path, userAgent, visitorAgent, referrer, utmSource];
  if (country !== null) columns.push(country);
  return columns.map((column) => column.buffer as ArrayBuffer);
}

export function unpackBatch(packed: PackedBatch): ParsedBatch {
  const { texts, country } = packed;
  const text = (index: number) => (index === -1 ? null : texts[index]!);
  const events: PreparedEvent[] = new Array(packed.count);
  for (let index = 0; index < packed.count; index++) {
    const visitorKey: PreparedEvent['visitorKey'] = {};
    if (packed.visitorId[index] !== undefined) visitorKey.visitorId = packed.visitorId[index];
    if (packed.ip[index] !== undefined) visitorKey.ip = packed.ip[index];
    if (packed.visitorAgent[index] !== -1) visitorKey.userAgent = texts[packed.visitorAgent[index]!];
    const event: PreparedEvent = {
      at: packed.at[index]!,
      path: texts[packed.path[index]!]!,
      markdown: packed.markdown[index] as MarkdownRequest,
      userAgent: texts[packed.userAgent[index]!]!,
      visitorKey,
      status: packed.status[index] === -1 ? null : packed.status[index]!,
      referrer: text(packed.referrer[index]!),
      utmSource: text(packed.utmSource[index]!),
      eventKey: packed.eventKey[index]!,
      verification: packed.verification[index] as Verification,
      signed: null,
    };
    if (packed.visitorHash[index] !== undefined) event.visitorHash = packed.visitorHash[index];
    if (country !== null) event.country = text(country[index]!);
    events[index] = event;
  }
  for (const [index, signed] of packed.signed) events[index]!.signed = signed;
  return { events, end: packed.end };
}
