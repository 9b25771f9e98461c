import { gunzipSync } from 'node:zlib';
import { ApiError, invalidRequest } from '../../http/errors.ts';
import { maxJsonDepth, nestsTooDeep } from '../../http/json.ts';

/** Whether the body is gzip: by `Content-Encoding`, or by its magic bytes (some senders compress without saying so). */
export function isGzip(body: Buffer, contentEncoding: string | undefined): boolean {
  return /\bgzip\b/i.test(contentEncoding ?? '') || (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b);
}

/**
 * The body's bytes, gunzipped when compressed, never more than `limit` bytes: a few kilobytes of gzip
 * can expand to gigabytes, so decompression stops at the limit instead of filling the memory.
 */
export function decompressed(body: Buffer, gzip: boolean, limit: number): Buffer {
  if (!gzip) return body;
  try {
    return gunzipSync(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new ApiError(
        'payload_too_large',
        `The batch expands to more than ${limit} bytes once decompressed (QUIRE_INGEST_BODY_LIMIT_BYTES); send smaller batches.`,
      );
    }
    throw invalidRequest('The body says it is gzip but does not decompress; send gzip data or leave out Content-Encoding.');
  }
}

/** One record of a batch: its parsed JSON value, or why it could not be read. */
export type BatchRecord = { value: unknown } | { error: string };

function parsed(line: string): BatchRecord {
  if (nestsTooDeep(line)) return { error: `record nests more than ${maxJsonDepth} levels deep` };
  try {
    return { value: JSON.parse(line) };
  } catch {
    return { error: 'record is not valid JSON' };
  }
}

/** Bytes of a body's start decoded to find its first character that is not whitespace. */
const shapePrefixBytes = 4096;

/** Whether the body's first character that is not whitespace (as `/\S/` finds it in the decoded text) is `[`. */
function opensArray(bytes: Buffer): boolean {
  const prefix = bytes.toString('utf8', 0, shapePrefixBytes);
  const first = prefix.search(/\S/);
  // A prefix of spacing, or one cut inside a character: the decoded whole decides.
  if (bytes.length > shapePrefixBytes && (first === -1 || prefix[first] === '\uFFFD')) {
    const text = bytes.toString('utf8');
    return text[text.search(/\S/)] === '[';
  }
  return prefix[first] === '[';
}

/**
 * The records of a batch: a JSON array (Vercel's `json` format) or one JSON value per line (NDJSON,
 * Cloudflare Logpush, Netlify). A line that is not JSON is a bad record of its own, never the
 * batch's; an array body is one JSON text, so it is read (or refused) whole. Lines are decoded one at a
 * time: a string of a whole batch of megabytes is mapped afresh by V8 (see http/json-pieces.ts).
 */
export function batchRecords(bytes: Buffer): BatchRecord[] {
  if (opensArray(bytes)) {
    const text = bytes.toString('utf8');
    if (nestsTooDeep(text))
      throw invalidRequest(`The body nests arrays or objects more than ${maxJsonDepth} levels deep; send the host's log records as they are.`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidRequest('The body starts like a JSON array but is not valid JSON; send a JSON array of records or one record per line (NDJSON).');
    }
    return (value as unknown[]).map((record) => ({ value: record }));
  }
  const records: BatchRecord[] = [];
  for (let start = 0; start <= bytes.length;) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const line = bytes.toString('utf8', start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    const record = parsed(line);
    // Vercel's importer format allows a JSON array per line: its entries are records of their own.
    if ('value' in record && Array.isArray(record.value)) for (const value of record.value) records.push({ value });
    else records.push(record);
  }
  return records;
}
