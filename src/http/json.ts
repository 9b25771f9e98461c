import type { FastifyReply } from 'fastify';
import { invalidRequest, type ApiError } from './errors.ts';

/**
 * Sends a body that is already the route's JSON (a cached serialization, say): Fastify passes a
 * string with a JSON content type through without serializing it again.
 */
export function sendSerialized(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

/** Deepest nesting of arrays and objects a request body may have; no Quire body needs more than five levels. */
export const maxJsonDepth = 32;

const [quote, backslash] = [0x22, 0x5c];
const [openBracket, openBrace, closeBracket, closeBrace] = [0x5b, 0x7b, 0x5d, 0x7d];

/** Where the string that opens at `open` ends: the next quote not escaped by an odd run of backslashes, or -1. */
function stringEnd(text: string, open: number): number {
  for (let end = text.indexOf('"', open + 1); end !== -1; end = text.indexOf('"', end + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === backslash) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
  return -1;
}

/**
 * Whether JSON `text` opens more than `maxJsonDepth` arrays or objects at once, found by one linear
 * scan. It runs before parsing: JSON.parse of megabytes of `[` holds the event loop for seconds before
 * it fails. Strings, most of an ingestion body, are skipped with a native search for their closing
 * quote rather than walked character by character. NDJSON is checked a line at a time (http/json-pieces.ts).
 */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === quote) {
      const end = stringEnd(text, index);
      // An unterminated string: JSON.parse stops at it, so nothing after it can nest.
      if (end === -1) return false;
      index = end;
    } else if (code === openBracket || code === openBrace) {
      if (++depth > maxJsonDepth) return true;
    } else if ((code === closeBracket || code === closeBrace) && depth > 0) {
      depth--;
    }
  }
  return false;
}

function tooDeep(): ApiError {
  return invalidRequest(
    `The body nests arrays or objects more than ${maxJsonDepth} levels deep, which no Quire operation takes; send the fields the operation documents.`,
  );
}

/**
 * Refuses the keys through which a parsed object could reach a prototype when it is later merged into
 * another (what Fastify's default parser checks), for bodies whose objects may be merged.
 */
export function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value)) {
    throw new SyntaxError('The body holds a "__proto__" or "constructor.prototype" key.');
  }
  return value;
}

/** Why a JSON text is refused: nested too deeply (checked before parsing), or not JSON. */
export type JsonFailure = 'too-deep' | 'not-json';

/**
 * Parses a JSON body's text: an empty body is no body (undefined), one nested too deeply is refused
 * before it is parsed. A plain result rather than an error, so a worker thread can send it back.
 */
export function parseJsonText(text: string, reviver?: (key: string, value: unknown) => unknown): { value: unknown } | { failure: JsonFailure } {
  if (text.trim() === '') return { value: undefined };
  if (nestsTooDeep(text)) return { failure: 'too-deep' };
  try {
    return { value: JSON.parse(text, reviver) };
  } catch {
    return { failure: 'not-json' };
  }
}

/** The contract's 400 for a refused JSON text. */
export function jsonFailure(failure: JsonFailure): ApiError {
  return failure === 'too-deep' ? tooDeep() : invalidRequest('The body is not valid JSON.');
}

/**
 * The one JSON body parser (see parseJsonText): anything that does not parse is a 400 with the
 * contract's body. `reviver` is left out where bodies run to megabytes and are read field by field
 * (event ingestion).
 */
export function jsonBodyParser(reviver?: (key: string, value: unknown) => unknown) {
  return (_request: unknown, body: string | Buffer, done: (error: Error | null, body?: unknown) => void): void => {
    const parsed = parseJsonText(body.toString(), reviver);
    if ('failure' in parsed) return done(jsonFailure(parsed.failure), undefined);
    done(null, parsed.value);
  };
}
