import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { formats } from '../../src/analytics/importers/formats.ts';
import { fileFingerprint, lineKey } from '../../src/analytics/importers/line-keys.ts';
import { LineParser } from '../../src/analytics/importers/line-parser.ts';
import { lineHeadBytes, LineSplitter, maxLineBytes, type Line } from '../../src/analytics/importers/lines.ts';
import { storeKeyedEvents } from '../../src/analytics/capture/keyed-events.ts';
import { importLog } from '../../src/analytics/importers/run.ts';
import { page } from '../../src/analytics/query/query.ts';
import { rebuildProject } from '../../src/analytics/fold/rebuild.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const samples = {
  combined: [
    `203.0.113.7 - - [21/Nov/2026:09:30:00 +0100] "GET /guides/setup?ref=nav HTTP/1.1" 200 5120 "https://example.com/" "${chrome}"`,
    `216.73.216.4 - - [21/Nov/2026:08:31:00 +0000] "GET /guides/setup.md HTTP/2.0" 200 812 "-" "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"`,
    `203.0.113.7 - - [21/Nov/2026:08:32:00 +0000] "POST /api/search HTTP/1.1" 200 10 "-" "${chrome}"`,
    `203.0.113.9 - - [21/Nov/2026:08:33:00 +0000] "GET /missing HTTP/1.1" 404 10 "-" "${chrome}"`,
    'this is not an access log line',
    `203.0.113.7 - - [99/Nov/2026:08:32:00 +0000] "GET / HTTP/1.1" 200 10`,
  ],
  cloudflare: [
    JSON.stringify({
      ClientIP: '203.0.113.7',
      ClientRequestMethod: 'GET',
      ClientRequestURI: '/guides/setup',
      ClientRequestUserAgent: chrome,
      EdgeStartTimestamp: 1795253400000000000,
      EdgeResponseStatus: 200,
    }),
    JSON.stringify({
      ClientIP: '20.171.206.4',
      ClientRequestMethod: 'GET',
      ClientRequestURI: '/guides/setup',
      ClientRequestUserAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
      EdgeStartTimestamp: '2026-11-21T08:31:00Z',
      EdgeResponseStatus: 200,
    }),
    JSON.stringify({ ClientIP: '203.0.113.7', ClientRequestMethod: 'PUT', ClientRequestURI: '/x', EdgeStartTimestamp: 1795253400, EdgeResponseStatus: 200 }),
    '{"ClientIP": "203.0.113.7", "ClientRequestURI": ',
  ],
  vercel: [
    JSON.stringify([
      {
        id: '1',
        source: 'edge',
        timestamp: 1795253400000,
        proxy: {
          timestamp: 1795253400000,
          method: 'GET',
          path: '/guides/setup',
          userAgent: [chrome],
          statusCode: 200,
          clientIp: '203.0.113.7',
          host: 'docs.example.com',
        },
      },
      { id: '2', source: 'build', timestamp: 1795253400000, message: 'Build completed' },
    ]),
    JSON.stringify({
      id: '3',
      source: 'edge',
      timestamp: 1795253460000,
      proxy: { timestamp: 1795253460000, method: 'GET', path: '/llms.txt', userAgent: ['curl/8.5.0'], statusCode: 200, clientIp: '198.51.100.4' },
    }),
    JSON.stringify({ id: '4', source: 'lambda', message: 'log line' }),
    'not json',
  ],
  cloudfront: [
    '#Version: 1.0',
    '#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query',
    `2026-11-21\t08:30:00\tFRA56-C1\t5120\t203.0.113.7\tGET\td111111abcdef8.cloudfront.net\t/guides/setup\t200\t-\t${encodeURIComponent(chrome)}\t-`,
    `2026-11-21\t08:31:00\tFRA56-C1\t812\t107.20.236.150\tGET\td111111abcdef8.cloudfront.net\t/guides/setup\t200\t-\tMozilla/5.0%20(compatible;%20PerplexityBot/1.0;%20+https://perplexity.ai/perplexitybot)\t-`,
    '2026-11-21\t08:32:00\ttoo few fields',
  ],
  ndjson: [
    JSON.stringify({ timestamp: '2026-11-21T08:30:00Z', path: '/guides/setup', userAgent: chrome, ip: '203.0.113.7' }),
    JSON.stringify({ timestamp: '2026-11-21T08:31:00Z', path: '/guides/setup', userAgent: 'ChatGPT-User/1.0', visitorId: 'agent-1' }),
    JSON.stringify({ timestamp: '2026-11-21T08:32:00Z' }),
    '{broken',
    // Any JSON: a method or content type that is not text skips its record, not the import.
    JSON.stringify({ timestamp: '2026-11-21T08:33:00Z', path: '/guides/setup', method: 1 }),
    JSON.stringify({ timestamp: '2026-11-21T08:34:00Z', path: '/guides/setup', contentType: { html: true } }),
  ],
} satisfies Record<keyof typeof formats, string[]>;

const expected: Record<keyof typeof formats, { accepted: number; reasons: Record<string, number> }> = {
  combined: {
    accepted: 3,
    reasons: { 'not a GET or HEAD request': 1, 'not a combined log line (no [time])': 1, 'not a combined log line (invalid time)': 1 },
  },
  cloudflare: { accepted: 2, reasons: { 'not a GET or HEAD request': 1, 'malformed line (not a JSON object)': 1 } },
  vercel: { accepted: 2, reasons: { 'not a request log entry': 1, 'malformed line (not JSON)': 1 } },
  cloudfront: { accepted: 2, reasons: { 'header line': 2, 'missing CloudFront fields: cs-uri-stem': 1 } },
  ndjson: {
    accepted: 2,
    reasons: {
      'no request path': 1,
      'malformed line (not a JSON object)': 1,
      'not a GET or HEAD request': 1,
      'invalid event: contentType must be a string.': 1,
    },
  },
};

/** The lines of `bytes` as the splitter's rules say, read whole: the model the splitter is held to. */
function linesOf(bytes: Buffer): Line[] {
  const lines: Line[] = [];
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(10, start);
    const contentEnd = newline === -1 ? bytes.length : newline;
    const end = newline === -1 ? bytes.length : newline + 1;
    if (contentEnd - start > maxLineBytes) {
      lines.push({ text: bytes.toString('utf8', start, start + lineHeadBytes), offset: start, end, overLong: true });
    } else {
      const text = bytes.toString('utf8', start, contentEnd);
      lines.push({ text: text.endsWith('\r') ? text.slice(0, -1) : text, offset: start, end });
    }
    start = end;
  }
  return lines;
}

describe('LineSplitter', () => {
  const shortLine = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', ' ', '\r'), maxLength: 30 });
  // Lines at the limit, one byte either side of it, and far past it.
  const longLine = fc.constantFrom(maxLineBytes - 1, maxLineBytes, maxLineBytes + 1, 3 * maxLineBytes).map((length) => 'x'.repeat(length));

  it('gives the same lines, offsets and over-long markers whatever chunks the bytes arrive in, into a buffer the caller reuses', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ arbitrary: shortLine, weight: 6 }, { arbitrary: longLine, weight: 1 }), { maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }),
        (texts, lastNewline, cutAt) => {
          const bytes = Buffer.from(`${texts.join('\n')}${lastNewline && texts.length > 0 ? '\n' : ''}`);
          const cuts = [...new Set(cutAt.map((at) => Math.floor(at * bytes.length)))].sort((a, b) => a - b);
          const bounds = [0, ...cuts, bytes.length];
          // Every chunk is copied into one buffer and pushed from it, then the buffer is overwritten (as tail.ts reads).
          const scratch = Buffer.alloc(bytes.length);
          const splitter = new LineSplitter();
          const chunked: Line[] = [];
          for (let index = 1; index < bounds.length; index++) {
            const length = bytes.copy(scratch, 0, bounds[index - 1], bounds[index]);
            chunked.push(...splitter.push(scratch.subarray(0, length)));
            scratch.fill(0x2a);
          }
          expect(splitter.pending()).toBe(bytes.length - (chunked.at(-1)?.end ?? 0));
          chunked.push(...splitter.finish());
          const whole = new LineSplitter();
          expect(chunked).toEqual([...whole.push(bytes), ...whole.finish()]);
          expect(chunked).toEqual(linesOf(bytes));
        },
      ),
      { numRuns: 60 },
    );
  });

  it(
    'splits a line of 16 MiB arriving in 16 KiB chunks, as gunzip gives them, into one over-long line at its offsets, in linear time',
    // A splitter that joined the held line at every chunk took several seconds for this line (and hours for one of 1 GiB).
    { timeout: 2_000 },
    async () => {
      const splitter = new LineSplitter(100);
      const chunk = Buffer.alloc(16 * 1024, 0x78);
      const length = 16 * 1024 * 1024;
      const lines: Line[] = [];
      for (let index = 0; index < length / chunk.length; index++) {
        lines.push(...splitter.push(chunk));
        // Lets the timeout end a test that takes too long.
        if (index % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(lines).toEqual([]);
      expect(splitter.pending()).toBe(length);
      lines.push(...splitter.push(Buffer.from('\nnext\n')));
      expect(lines).toEqual([
        { text: 'x'.repeat(lineHeadBytes), offset: 100, end: 100 + length + 1, overLong: true },
        { text: 'next', offset: 100 + length + 1, end: 100 + length + 6 },
      ]);
    },
  );
});

describe.each(testDatabases)('log importers on $dialect', (database) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => storage.close());

  const range = { measure: 'visitors' as const, from: Date.UTC(2026, 10, 21), to: Date.UTC(2026, 10, 22), limit: 50, offset: 0 };

  it.each(Object.keys(samples) as (keyof typeof formats)[])(
    'imports %s lines, skips malformed ones with reasons, and re-imports without double counting',
    async (format) => {
      const tenant: Tenant = await createTenant(storage);
      const analytics = createAnalyticsState(storage);
      const text = `${samples[format].join('\n')}\n`;
      const first = await importLog(analytics, tenant.project, format, Readable.from([Buffer.from(text)]));
      expect(first).toEqual({
        lines: samples[format].length,
        accepted: expected[format].accepted,
        skipped: Object.values(expected[format].reasons).reduce((sum, count) => sum + count, 0),
        reasons: expected[format].reasons,
        notes: {},
      });
      const counted = await page(analytics, tenant.project.id, range);
      expect(counted.totals.total).toBeGreaterThan(0);
      expect(counted.totals.ai).toBe(1);

      const again = await importLog(analytics, tenant.project, format, Readable.from([gzipSync(text)]));
      expect(again.accepted).toBe(0);
      expect(again.reasons['already imported']).toBe(expected[format].accepted);
      const views = await page(analytics, tenant.project.id, { ...range, measure: 'views' });
      expect(views.totals.total).toBe(expected[format].accepted - (format === 'combined' ? 1 : 0));
      expect(await page(analytics, tenant.project.id, range)).toEqual(counted);

      await rebuildProject(analytics, tenant.project.id);
      expect(await page(analytics, tenant.project.id, range)).toEqual(counted);
      expect((await page(analytics, tenant.project.id, { ...range, measure: 'views' })).totals).toEqual(views.totals);
    },
  );

  it('reads a log cut anywhere into chunks, in many batches, as it reads it whole', async () => {
    // Lines cut mid-line and mid-character (a multi-byte path), stored in batches of 7 events while
    // the reading thread parses ahead: every line counted once, every view stored once.
    const tenant: Tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const lines = Array.from({ length: 500 }, (_, index) => {
      const minute = String(index % 60).padStart(2, '0');
      const path = index % 5 === 0 ? `/guides/über-${index % 40}` : `/guides/page-${index % 40}`;
      const method = index % 50 === 1 ? 'POST' : 'GET';
      return `203.0.113.${index % 200} - - [21/Nov/2026:08:${minute}:00 +0000] "${method} ${path} HTTP/1.1" 200 10 "-" "${chrome} v${index % 30}"`;
    });
    const bytes = Buffer.from(`${lines.join('\n')}\nnot a log line\n`);
    const chunks: Buffer[] = [];
    for (let start = 0, size = 1; start < bytes.length; start += size, size = (size * 7) % 97 || 1) chunks.push(bytes.subarray(start, start + size));
    const posts = lines.filter((line) => line.includes('"POST ')).length;

    const summary = await importLog(analytics, tenant.project, 'combined', Readable.from(chunks), { batchSize: 7 });
    expect(summary).toEqual({
      lines: 501,
      accepted: 500 - posts,
      skipped: posts + 1,
      reasons: { 'not a GET or HEAD request': posts, 'not a combined log line (no [time])': 1 },
      notes: {},
    });
    const views = await page(analytics, tenant.project.id, { ...range, measure: 'views' });
    expect(views.totals.total).toBe(500 - posts);
    expect(views.rows.map((row) => row.path)).toContain('/guides/über-0');

    // Whole and gzipped this time: the same lines, all known.
    const again = await importLog(analytics, tenant.project, 'combined', Readable.from([gzipSync(bytes)]));
    expect(again).toMatchObject({ lines: 501, accepted: 0, reasons: { 'already imported': 500 - posts } });
  });

  it('reads a file by its path in the reading thread, plain or gzipped, far ahead of small batches, as it reads a stream', async () => {
    // Batches of 3 events: the reading thread reaches its limit of waiting batches and reads on only as they are taken.
    const tenant: Tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const lines = Array.from({ length: 400 }, (_, index) => {
      const minute = String(index % 60).padStart(2, '0');
      const method = index % 40 === 3 ? 'POST' : 'GET';
      return `192.0.2.${index % 30} - - [21/Nov/2026:07:${minute}:00 +0000] "${method} /guides/file-${index % 25} HTTP/1.1" 200 10 "-" "${chrome}"`;
    });
    const text = `${lines.join('\n')}\n\u0000\u0000 not a line`;
    const posts = lines.filter((line) => line.includes('"POST ')).length;
    const directory = mkdtempSync(join(tmpdir(), 'quire-import-'));
    try {
      const plain = join(directory, 'access.log');
      const gzipped = join(directory, 'access.log.gz');
      writeFileSync(plain, text);
      writeFileSync(gzipped, gzipSync(text));
      const progress: number[] = [];
      const summary = await importLog(analytics, tenant.project, 'combined', plain, { batchSize: 3, onProgress: (bytes) => progress.push(bytes) });
      expect(summary).toEqual({
        lines: 401,
        accepted: 400 - posts,
        skipped: posts + 1,
        reasons: { 'not a GET or HEAD request': posts, 'not a combined log line (no [time])': 1 },
        notes: {},
      });
      expect(progress.at(-1)).toBe(Buffer.byteLength(text));
      const views = await page(analytics, tenant.project.id, { ...range, measure: 'views' });
      expect(views.totals.total).toBe(400 - posts);

      // The same lines gzipped, and streamed: all known, counted alike.
      const again = await importLog(analytics, tenant.project, 'combined', gzipped, { batchSize: 3 });
      expect(again).toMatchObject({ lines: 401, accepted: 0, reasons: { 'already imported': 400 - posts } });
      const streamed = await importLog(analytics, tenant.project, 'combined', Readable.from([Buffer.from(text)]));
      expect(streamed).toMatchObject({ lines: 401, accepted: 0, reasons: { 'already imported': 400 - posts } });
      // A path that can be read only once (a named pipe, as `<(zcat …)` gives): nothing lost to the gzip check.
      const pipe = join(directory, 'pipe');
      execFileSync('mkfifo', [pipe]);
      const writing = new Promise<void>((resolve, reject) =>
        createWriteStream(pipe)
          .on('error', reject)
          .end(gzipSync(text), () => resolve()),
      );
      const piped = await importLog(analytics, tenant.project, 'combined', pipe);
      await writing;
      expect(piped).toMatchObject({ lines: 401, accepted: 0, reasons: { 'already imported': 400 - posts } });
      expect((await page(analytics, tenant.project.id, { ...range, measure: 'views' })).totals).toEqual(views.totals);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('stores only the new lines of a batch that holds lines stored before, and a key sent twice in one write once', async () => {
    const tenant: Tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const lines = Array.from(
      { length: 300 },
      (_, index) =>
        `198.51.100.${index % 50} - - [21/Nov/2026:10:${String(index % 60).padStart(2, '0')}:00 +0000] "GET /guides/page-${index % 12} HTTP/1.1" 200 10 "-" "${chrome}"`,
    );
    const text = (count: number) => Buffer.from(`${lines.slice(0, count).join('\n')}\n`);
    // The first 125 lines, then the whole file in batches of 50: the third batch holds 25 old lines and 25 new ones.
    expect((await importLog(analytics, tenant.project, 'combined', Readable.from([text(125)]))).accepted).toBe(125);
    const whole = await importLog(analytics, tenant.project, 'combined', Readable.from([text(300)]), { batchSize: 50 });
    expect(whole).toMatchObject({ lines: 300, accepted: 175, reasons: { 'already imported': 125 } });
    expect((await page(analytics, tenant.project.id, { ...range, measure: 'views' })).totals.total).toBe(300);

    // One write that carries a new key twice, beside a key stored before: the new one stored and counted once.
    const view = (path: string) => ({ path, timestamp: Date.UTC(2026, 10, 21, 11), ip: '198.51.100.7', userAgent: chrome });
    const skip = (reason: string) => expect.unreachable(reason);
    expect(await storeKeyedEvents(analytics, tenant.project, [view('/guides/before')], ['key-before'], skip)).toEqual({ stored: 1, duplicates: 0 });
    const write = await storeKeyedEvents(
      analytics,
      tenant.project,
      [view('/guides/twice'), view('/guides/twice'), view('/guides/before')],
      ['key-twice', 'key-twice', 'key-before'],
      skip,
    );
    expect(write).toEqual({ stored: 1, duplicates: 2 });
    const views = await page(analytics, tenant.project.id, { ...range, measure: 'views' });
    expect(views.totals.total).toBe(302);
    expect(views.rows.filter((row) => row.path === '/guides/twice' || row.path === '/guides/before').map((row) => row.total)).toEqual([1, 1]);
  });

  it('skips a line longer than 1 MiB in a gzipped file unread, and stores the lines after it at their byte offsets, once', async () => {
    const tenant: Tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const view = (index: number) => `203.0.113.${index} - - [21/Nov/2026:08:4${index}:00 +0000] "GET /guides/long-${index} HTTP/1.1" 200 10 "-" "${chrome}"`;
    const long = 'x'.repeat(4 * 1024 * 1024);
    // The last line, over-long too, has no newline: read at the end of the file.
    const parts = [`${view(0)}\n`, `${long}\n`, `${view(1)}\n`, `${view(2)}\n`, long];
    const text = parts.join('');
    const directory = mkdtempSync(join(tmpdir(), 'quire-import-'));
    try {
      const gzipped = join(directory, 'one-long-line.log.gz');
      writeFileSync(gzipped, gzipSync(text));
      const skipped = { 'line longer than 1 MiB': 2 };
      const summary = await importLog(analytics, tenant.project, 'combined', gzipped);
      expect(summary).toEqual({ lines: 5, accepted: 3, skipped: 2, reasons: skipped, notes: {} });

      // Each view is keyed by its line's own byte offset in the file, the over-long line's bytes counted.
      const offsetOf = (index: number) => parts.slice(0, index).reduce((sum, part) => sum + Buffer.byteLength(part), 0);
      const keys = [0, 2, 3].map((index) => lineKey(fileFingerprint(view(0)), offsetOf(index), parts[index].slice(0, -1), 0));
      const stored = await storage.db
        .selectFrom('analytics_events')
        .innerJoin('analytics_projects', 'analytics_projects.project_key', 'analytics_events.project_key')
        .select('event_key')
        .where('analytics_projects.project_id', '=', tenant.project.id)
        .execute();
      expect(stored.map((row) => row.event_key).sort()).toEqual(keys.sort());

      // Plain and streamed in small chunks this time: the same keys, all known.
      const bytes = Buffer.from(text);
      const chunks = Array.from({ length: Math.ceil(bytes.length / 10_000) }, (_, index) => bytes.subarray(index * 10_000, (index + 1) * 10_000));
      const again = await importLog(analytics, tenant.project, 'combined', Readable.from(chunks));
      expect(again).toEqual({ lines: 5, accepted: 0, skipped: 5, reasons: { ...skipped, 'already imported': 3 }, notes: {} });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('hashes each visitor key once in the reading thread, and counts a visitor the storing side no longer holds as the same visitor', async () => {
    const tenant: Tenant = await createTenant(storage);
    const visitor = (index: number) => `203.0.113.${index % 20}`;
    const lines = Array.from({ length: 300 }, (_, index) => {
      const minute = String(index % 60).padStart(2, '0');
      return `${visitor(index)} - - [21/Nov/2026:09:${minute}:00 +0000] "GET /guides/page-${index % 9} HTTP/1.1" 200 10 "-" "${chrome}"`;
    });
    const parser = new LineParser('combined', { skipAssets: true }, 'secret');
    let offset = 0;
    for (const text of lines) {
      parser.add({ text, offset, end: offset + text.length + 1 });
      offset += text.length + 1;
    }
    const hashed = parser.take().events.filter((event) => event.visitorHash !== undefined);
    expect(hashed.map((event) => event.visitorKey.ip)).toEqual(Array.from({ length: 20 }, (_, index) => visitor(index)));

    // The storing side forgets every visitor before each batch (as a cache that started over would):
    // the lines not hashed by the reading thread are hashed there, and still find their visitor.
    const analytics = createAnalyticsState(storage);
    const { writer } = analytics;
    const write = writer.write.bind(writer);
    writer.write = (call) => {
      analytics.ids.identities.clear();
      return write(call);
    };
    const summary = await importLog(analytics, tenant.project, 'combined', Readable.from([Buffer.from(`${lines.join('\n')}\n`)]), { batchSize: 7 });
    expect(summary.accepted).toBe(300);
    const visitors = await page(analytics, tenant.project.id, range);
    expect(visitors.totals.total).toBe(20);
  });
});
