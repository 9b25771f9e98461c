import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { drainBatchWork, prepareDrainBatch, type DrainBatchInput } from '../../src/analytics/drains/prepare-batch.ts';
import { prepareRequest } from '../../src/analytics/http/events-request.ts';
import { eventsBodyWork, parseEventsBody } from '../../src/analytics/http/events-body.ts';
import { asIs, ParsePool } from '../../src/lib/parse-pool.ts';
import { semiSpaceMb } from '../../src/lib/thread-memory.ts';
import { countries } from '../../src/analytics/ingest/dimensions/countries.ts';
import type { PreparedEvent } from '../../src/analytics/model/prepared-event.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const now = Date.UTC(2026, 5, 1);
/** Views of both visitor kinds, a referrer with a campaign, feedback and searches, and refused events. */
const events = Array.from({ length: 2000 }, (_, index) => {
  if (index % 250 === 3) return { kind: 'feedback', source: 'thumbs_only', path: '/guide', helpful: index % 2 === 0 };
  if (index % 250 === 4) return { kind: 'search', query: `setup ${index}`, hits: index % 4 };
  if (index % 250 === 5) return { path: 'no-slash' };
  return {
    timestamp: now - index * 1000,
    path: index % 7 === 0 ? `/guide/${index % 30}.md?utm_source=chatgpt.com` : `/guide/${index % 30}`,
    userAgent: index % 11 === 0 ? 'GPTBot/1.2' : chrome,
    ...(index % 2 === 0 ? { visitorId: `v-${index % 400}` } : { ip: `203.0.113.${index % 200}` }),
    referrer: index % 5 === 0 ? 'https://www.example.org/somewhere' : undefined,
    status: index % 13 === 0 ? 404 : 200,
  };
});
const text = JSON.stringify({ events });
/** An event as a parse thread hands it on: with the country it looked up, which the event loop would look up when storing. */
const withCountry = (event: PreparedEvent) => ({ ...event, country: countries.country(event.visitorKey.ip) });
const eventsThread = new URL('../../src/analytics/http/parse-thread.ts', import.meta.url);
const drainThread = new URL('../../src/analytics/drains/parse-thread.ts', import.meta.url);

describe('parse pool', () => {
  it('prepares a large body in a thread exactly as the event loop would', async () => {
    const pool = new ParsePool(eventsThread, eventsBodyWork, 1);
    try {
      const parsed = await pool.run({ bytes: Buffer.from(text), ndjson: false, now }, text.length);
      if (parsed.failure !== undefined) throw new Error(parsed.failure);
      expect(parsed.count).toBe(2000);
      expect(parsed.body).toEqual({ events: [] });
      const expected = prepareRequest(events, now);
      expect(expected.errors).toHaveLength(8);
      expect(expected.interactions).toHaveLength(16);
      expect(parsed.prepared).toEqual({ ...expected, views: expected.views.map(withCountry) });
    } finally {
      await pool.close();
    }
  });

  it('answers a body whose thread went away, parsing it where it arrived', async () => {
    const pool = new ParsePool(eventsThread, eventsBodyWork, 1);
    const pending = pool.run({ bytes: Buffer.from(text), ndjson: false, now }, text.length);
    await pool.close();
    const parsed = await pending;
    expect(parsed).toEqual(parseEventsBody(Buffer.from(text), false, now));
  });

  it('rejects a fault of the task with its message, in a thread as inline, and keeps the thread serving', async () => {
    const task = (text: string) => {
      if (text.startsWith('!')) throw new Error(`cannot measure ${text.slice(0, 8)}`);
      return text.length;
    };
    const pool = new ParsePool(new URL('../support/parse-thread-fixture.ts', import.meta.url), asIs(task), 1);
    try {
      const large = 'x'.repeat(100_000);
      await expect(pool.run(`!${large}`, 100_001)).rejects.toThrow('cannot measure !xxxxxxx');
      expect(await pool.run(large, 100_000)).toBe(100_000);
      await expect(pool.run('!small', 6)).rejects.toThrow('cannot measure !small');
    } finally {
      await pool.close();
    }
  });

  it("keeps a thread's young generation small while it churns short-lived objects (src/lib/thread-memory.ts)", async () => {
    const pool = new ParsePool(
      new URL('../support/parse-thread-fixture.ts', import.meta.url),
      asIs<string, number>(() => 0),
      1,
    );
    try {
      const request = `young generation${' '.repeat(70_000)}`;
      // Two semi-spaces at most; V8's own sizing lets a thread's grow to 128 MiB on a machine with 24 GiB.
      expect(await pool.run(request, request.length)).toBeLessThanOrEqual(2 * semiSpaceMb);
    } finally {
      await pool.close();
    }
  });

  it('parses everything where it arrives with no threads (QUIRE_PARSE_THREADS=0)', async () => {
    // The fixture's thread answers a length; here the event loop answers where it ran.
    const fixture = new URL('../support/parse-thread-fixture.ts', import.meta.url);
    const large = 'x'.repeat(100_000);
    const none = new ParsePool<string, number | string>(
      fixture,
      asIs<string, number | string>(() => 'event loop'),
      0,
    );
    const one = new ParsePool<string, number | string>(
      fixture,
      asIs<string, number | string>(() => 'event loop'),
      1,
    );
    try {
      expect(await none.run(large, large.length)).toBe('event loop');
      expect(await one.run(large, large.length)).toBe(100_000);
    } finally {
      await Promise.all([none.close(), one.close()]);
    }
  });

  /** Cloudflare's documented records, each sent 500 times with its own ray id, gzipped as Logpush sends them. */
  const cloudflare = readFileSync(new URL('./fixtures/drains/cloudflare.ndjson', import.meta.url), 'utf8')
    .trim()
    .split('\n');
  const records = Array.from({ length: 500 }, (_, copy) =>
    cloudflare.map((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(record.RayID === undefined ? record : { ...record, RayID: `${String(record.RayID)}-${copy}` });
    }),
  ).flat();
  const drainInput = (body: Buffer): DrainBatchInput => ({
    kind: 'cloudflare',
    drainId: 'drn_test',
    body,
    gzip: true,
    limit: 64 * 1024 * 1024,
    rule: { skipAssets: true },
    now: Date.UTC(2026, 10, 22),
  });

  it('prepares a large drain batch in a thread exactly as the event loop would, failures included', async () => {
    const pool = new ParsePool(drainThread, drainBatchWork, 1);
    try {
      const body = gzipSync(records.join('\n'));
      const threaded = await pool.run(drainInput(body), 1024 * 1024);
      const inline = prepareDrainBatch(drainInput(body));
      if (threaded.failure !== undefined || inline.failure !== undefined) throw new Error('the batch should be read');
      expect(threaded.skipped).toEqual(inline.skipped);
      expect(threaded.notes).toEqual(inline.notes);
      const events = threaded.events;
      expect(events.length).toBeGreaterThan(1000);
      expect(events).toEqual(inline.events.map(withCountry));
      expect(new Set(events.map((event) => event.eventKey)).size).toBe(events.length);
      // A body that expands past the limit is refused the same way from a thread.
      const bomb = gzipSync(Buffer.alloc(1024 * 1024));
      const refused = await pool.run({ ...drainInput(bomb), limit: 64 * 1024 }, 1024 * 1024);
      expect(refused).toEqual(prepareDrainBatch({ ...drainInput(bomb), limit: 64 * 1024 }));
      expect(refused.failure?.code).toBe('payload_too_large');
    } finally {
      await pool.close();
    }
  });
});
