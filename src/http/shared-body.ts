/**
 * Large request bodies read into shared memory that is used again, for bodies a parse thread reads
 * (lib/parse-pool.ts). Posting a body read into a plain buffer copies it into the thread (structured
 * clone), and both its buffers are new memory, whose first touch costs this machine kind about 12 µs a
 * page: together about 0.8 µs per ingested event on the event loop and as much on the parse thread.
 * A shared buffer crosses threads without a copy, and one already touched costs nothing more; it stays
 * readable here, so a parse thread that fails leaves the body to be parsed on the event loop.
 *
 * Bodies under `sharedFrom` bytes are read as Fastify reads them (one buffer of the chunks); a larger
 * one moves into a slab once that many bytes have arrived. The caller gives the slab back (`release`)
 * once nothing reads the body any more. Free slabs are kept up to 16 MiB in all, so a burst of large
 * bodies holds no more memory after it than that; a declared length sizes a first slab up to 4 MiB,
 * and a larger body grows its slab as its bytes arrive, so a length declared and never sent costs little.
 */
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';

/** Smallest slab: a thousand-event JSON body is about 255 KB. */
const smallestSlab = 512 * 1024;
/** A declared Content-Length sizes the first slab up to this; a larger body grows it as its bytes arrive. */
const largestFirstSlab = 4 * 1024 * 1024;
/** Bytes of free slabs kept for reuse, all sizes together: a burst of large bodies leaves no more than this held. */
const keptBytes = 16 * 1024 * 1024;

/** Free slabs by size (a power of two from `smallestSlab`), and their bytes. */
const free = new Map<number, SharedArrayBuffer[]>();
let freeBytes = 0;

function takeSlab(bytes: number): SharedArrayBuffer {
  let size = smallestSlab;
  while (size < bytes) size *= 2;
  const kept = free.get(size)?.pop();
  if (kept === undefined) return new SharedArrayBuffer(size);
  freeBytes -= size;
  return kept;
}

function giveSlab(slab: SharedArrayBuffer): void {
  if (freeBytes + slab.byteLength > keptBytes) return;
  let kept = free.get(slab.byteLength);
  if (!kept) free.set(slab.byteLength, (kept = []));
  kept.push(slab);
  freeBytes += slab.byteLength;
}

export interface ReadBody {
  /** The body's bytes: a view of a slab, or a plain buffer for a small body. */
  bytes: Buffer;
  /** Gives the slab back for the next body; the bytes must not be read after. */
  release(): void;
}

/**
 * Reads a request's body as Fastify's own `parseAs: 'buffer'` does (the route's body limit, Content-Length
 * checked against what arrived, a failed stream a 400), into a slab when it reaches `sharedFrom` bytes.
 */
export function readBody(request: FastifyRequest, payload: Readable, sharedFrom: number): Promise<ReadBody> {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const declared = Number(request.headers['content-length']);
  return new Promise((resolve, reject) => {
    if (declared > limit) return reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    let chunks: Buffer[] = [];
    /** The slab the body is read into, once it reached `sharedFrom` bytes. */
    let view: Uint8Array<SharedArrayBuffer> | null = null;
    let received = 0;

    const append = (chunk: Buffer) => {
      if (view === null || received + chunk.length > view.length) {
        const next = new Uint8Array(takeSlab(Math.max(received + chunk.length, Number.isNaN(declared) ? 0 : Math.min(declared, largestFirstSlab))));
        if (view !== null) {
          next.set(view.subarray(0, received));
          giveSlab(view.buffer);
        } else {
          let at = 0;
          for (const piece of chunks) {
            next.set(piece, at);
            at += piece.length;
          }
          chunks = [];
        }
        view = next;
      }
      view.set(chunk, received);
    };
    const stop = () => {
      payload.off('data', onData);
      payload.off('end', onEnd);
      payload.off('error', onError);
    };
    const fail = (error: Error) => {
      stop();
      if (view !== null) giveSlab(view.buffer);
      reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (received + bytes.length > limit) return fail(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      if (view !== null || received + bytes.length >= sharedFrom) append(bytes);
      else chunks.push(bytes);
      received += bytes.length;
    };
    const onEnd = () => {
      if (!Number.isNaN(declared) && received !== declared) return fail(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      stop();
      if (view === null) return resolve({ bytes: Buffer.concat(chunks, received), release: () => {} });
      const slab = view.buffer;
      let released = false;
      resolve({
        bytes: Buffer.from(slab, 0, received),
        release: () => {
          if (released) return;
          released = true;
          giveSlab(slab);
        },
      });
    };
    const onError = (error: Error & { statusCode?: number }) => {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      fail(error);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}
