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

const [quote, backslash, newline] = [0x22, 0x5c, 0x0a];
const [openBracket, openBrace, closeBracket, closeBrace] = [0x5b, 0x7b, 0x5d, 0x7d];

/**
 * Whether JSON `text` opens more than `maxJsonDepth` arrays or objects at once, found by one linear
 * scan that skips strings. It runs before parsing: JSON.parse of megabytes of `[` holds the event loop
 * for seconds before it fails. With `lines` (NDJSON) every line counts on its own.
 */
export function nestsTooDeep(text: string, lines = false): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (lines && code === newline) {
      depth = 0;
      inString = false;
    } else if (inString) {
      if (code === backslash) index++;
      else if (code === quote) inString = false;
    } else if (code === quote) {
      inString = true;
    } else if (code === openBracket || code === openBrace) {
      if (++depth > maxJsonDepth) return true;
    } else if ((code === closeBracket || code === closeBrace) && depth > 0) {
      depth--;
    }
  }
  return false;
}

export function tooDeep(): ApiError {
  return invalidRequest(`The body nests arrays or objects more than ${maxJsonDepth} levels deep, which no Quire operation takes; send the fields the operation documents.`);
}
