import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../src/http/shared-body.ts';

const sharedFrom = 64 * 1024;

/** A request as the reader sees it: the route's body limit and the headers. */
const request = (bodyLimit: number, headers: Record<string, string> = {}) => ({ routeOptions: { bodyLimit }, headers }) as unknown as FastifyRequest;

/** A body arriving in `size`-byte chunks, one per turn of the event loop, as a socket delivers it. */
function arriving(bytes: Buffer, size: number, failAt?: number): Readable {
  let at = 0;
  return new Readable({
    read() {
      setImmediate(() => {
        if (failAt !== undefined && at >= failAt) return this.destroy(new Error('the client went away'));
        if (at >= bytes.length) return this.push(null);
        this.push(bytes.subarray(at, at + size));
        at += size;
      });
    },
  });
}

describe('reading a request body into shared memory', () => {
  it('reads a small body into a plain buffer, as Fastify does', async () => {
    const bytes = randomBytes(10_000);
    const body = await readBody(request(1e6, { 'content-length': String(bytes.length) }), arriving(bytes, 3000), sharedFrom);
    expect(body.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(body.bytes)).toEqual(bytes);
    body.release();
  });

  it('moves a large body into a slab, growing it while chunks arrive without a declared length', async () => {
    const bytes = randomBytes(1_300_000);
    const body = await readBody(request(16e6), arriving(bytes, 10_000), sharedFrom);
    expect(body.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(body.bytes.byteLength).toBe(bytes.length);
    expect(Buffer.from(body.bytes)).toEqual(bytes);
    body.release();
  });

  it('gives a slab to one body at a time, and to the next once given back', async () => {
    const first = randomBytes(300_000);
    const second = randomBytes(300_000);
    const [a, b] = await Promise.all([
      readBody(request(16e6, { 'content-length': String(first.length) }), arriving(first, 65_536), sharedFrom),
      readBody(request(16e6, { 'content-length': String(second.length) }), arriving(second, 65_536), sharedFrom),
    ]);
    expect(a.bytes.buffer).not.toBe(b.bytes.buffer);
    expect(Buffer.from(a.bytes)).toEqual(first);
    expect(Buffer.from(b.bytes)).toEqual(second);
    a.release();
    // Given back twice by mistake, a slab is still kept once: two later bodies never share it.
    a.release();
    const third = randomBytes(200_000);
    const [c, d] = await Promise.all([
      readBody(request(16e6, { 'content-length': String(third.length) }), arriving(third, 65_536), sharedFrom),
      readBody(request(16e6, { 'content-length': String(third.length) }), arriving(third, 65_536), sharedFrom),
    ]);
    expect(c.bytes.buffer).not.toBe(d.bytes.buffer);
    expect([c.bytes.buffer, d.bytes.buffer]).toContain(a.bytes.buffer);
    expect(Buffer.from(c.bytes)).toEqual(third);
    expect(Buffer.from(d.bytes)).toEqual(third);
    b.release();
    c.release();
    d.release();
  });

  it('refuses a body over the limit, declared or as it arrives, with the answers Fastify gives', async () => {
    const bytes = randomBytes(200_000);
    await expect(readBody(request(100_000, { 'content-length': String(bytes.length) }), arriving(bytes, 65_536), sharedFrom)).rejects.toMatchObject({
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    });
    await expect(readBody(request(100_000), arriving(bytes, 10_000), sharedFrom)).rejects.toMatchObject({
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    });
  });

  it('refuses a body shorter than its Content-Length, and one whose stream failed', async () => {
    const bytes = randomBytes(200_000);
    await expect(readBody(request(16e6, { 'content-length': String(bytes.length + 1) }), arriving(bytes, 65_536), sharedFrom)).rejects.toMatchObject({
      code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
      statusCode: 400,
    });
    await expect(readBody(request(16e6), arriving(bytes, 65_536, 131_072), sharedFrom)).rejects.toMatchObject({
      message: 'the client went away',
      statusCode: 400,
    });
  });
});
