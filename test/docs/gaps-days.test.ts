import type { FastifyInstance } from 'fastify';
import type { ExpressionBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepGapEvidence } from '../../src/analytics/feedback/gap-evidence.ts';
import { purgeExpiredInteractions } from '../../src/analytics/feedback/retention.ts';
import { rebuildProject } from '../../src/analytics/fold/rebuild.ts';
import { purgeExpiredEvents } from '../../src/analytics/fold/retention.ts';
import { dayMs, dayOf } from '../../src/analytics/model/days.ts';
import { groupEvidence, type EvidenceItem, type GapGroup } from '../../src/docs/gaps/group.ts';
import { computeGaps } from '../../src/docs/gaps/list.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import type { Database } from '../../src/storage/schema.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const claudeBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const queries = [
  'rate limit',
  'rate limits',
  'ratelimit',
  'webhooks retry',
  'webhook retries',
  'sso setup',
  'single sign-on',
  'billing export',
  'deploy preview',
];
const paths = ['/old/api', '/v1/guide', '/missing/page', '/docs/sso', '/docs/limits'];
const comments = ['', '', 'step 3 did not work', 'rate limits are not listed', 'unclear'];

/** A small seeded generator (so a failure can be replayed). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Sent {
  event: Record<string, unknown>;
  item: EvidenceItem | null;
}

/**
 * Random failures over six whole days, each event with the evidence item it should become, read
 * from what was sent (a visitor is its address and user agent; ClaudeBot from Anthropic's addresses
 * is an AI visitor), so the expected gaps are grouped without reading the database.
 */
function randomEvents(next: () => number, start: number, count: number, visitorIds: Map<string, number>): Sent[] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const sent: Sent[] = [];
  for (let index = 0; index < count; index++) {
    const at = start + Math.floor(next() * 6 * dayMs);
    const ai = next() < 0.3;
    const ip = ai ? `216.73.216.${1 + Math.floor(next() * 6)}` : `198.51.100.${1 + Math.floor(next() * 25)}`;
    const userAgent = ai ? claudeBot : chrome;
    const visitorKey = `${ip}|${userAgent}`;
    if (!visitorIds.has(visitorKey)) visitorIds.set(visitorKey, visitorIds.size + 1);
    const visitor = visitorIds.get(visitorKey)!;
    const visitorClass = ai ? ('ai' as const) : ('human' as const);
    const kind = next();
    if (kind < 0.4) {
      const query = pick(queries);
      const hits = next() < 0.25 ? 2 : 0;
      sent.push({
        event: { kind: 'search', query, hits, ip, userAgent, timestamp: at },
        item: hits === 0 ? { source: 'searches', text: query, path: null, visitor, visitorClass, count: 1, first: at, last: at } : null,
      });
    } else if (kind < 0.8) {
      const path = pick(paths);
      const status = next() < 0.2 ? 200 : 404;
      sent.push({
        event: { path, status, ip, userAgent, timestamp: at },
        item: status === 404 ? { source: 'notFound', text: null, path, visitor, visitorClass, count: 1, first: at, last: at } : null,
      });
    } else if (!ai) {
      const path = pick(paths);
      const comment = pick(comments);
      const helpful = next() < 0.3;
      sent.push({
        event: { kind: 'feedback', source: 'thumbs_only', path, helpful, comment, ip, userAgent, timestamp: at },
        item: helpful ? null : { source: 'feedback', text: comment || null, path, visitor, visitorClass, count: 1, first: at, last: at },
      });
    }
  }
  return sent;
}

/** What the list shows of a group, in one order. */
function shown(groups: GapGroup[]): string[] {
  return groups
    .map(({ title, kind, evidence, visitors, examples, paths: groupPaths, firstSeenAt, lastSeenAt }) =>
      JSON.stringify({ title, kind, evidence, visitors, examples, paths: groupPaths, firstSeenAt, lastSeenAt }),
    )
    .sort();
}

describe.each(testDatabases)('docs gaps from per-day evidence on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  const visitorIds = new Map<string, number>();
  const sent: Sent[] = [];
  const start = (dayOf(Date.now()) - 10) * dayMs;
  const next = seeded(database.dialect === 'sqlite' ? 31 : 37);

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { analyticsRateLimit: 100_000 } });
    app = await testApp(context);
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  async function send(events: Sent[]) {
    for (let index = 0; index < events.length; index += 100) {
      const response = await app.inject({
        method: 'POST',
        url: `/v1/analytics/${tenant.project.id}/events`,
        headers: tenant.auth,
        payload: { events: events.slice(index, index + 100).map((one) => one.event) },
      });
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json()).toMatchObject({ rejected: 0 });
    }
    sent.push(...events);
  }

  /** The gaps over [from, to) as the list computes them, beside the groups of the items sent in that range. */
  async function compare(from: number, to: number) {
    const computed = await computeGaps({ storage, analytics: context.analytics }, tenant.project.id, { from, to });
    const items = sent.map((one) => one.item).filter((item): item is EvidenceItem => item !== null && item.first >= from && item.first < to);
    // The expected groups count the test's visitor numbers, the list the server's dense ids: counts compare, ids do not.
    const expected = shown(groupEvidence(items));
    const actual = shown(computed.flatMap((gap) => (gap.group ? [gap.group as GapGroup] : [])));
    expect(items.length).toBeGreaterThan(20);
    expect(actual).toEqual(expected);
  }

  const keptDays = async () =>
    Number(
      (
        await storage.db
          .selectFrom('analytics_gap_days')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow()
      ).count,
    );

  it('lists exactly the gaps of the raw failures over whole and partial days, as days are kept, go stale, are rebuilt and purged', async () => {
    await send(randomEvents(next, start, 400, visitorIds));
    const end = start + 6 * dayMs;
    const keep = () => keepGapEvidence(context.analytics, tenant.project.id, { from: start, to: end });
    // Nothing kept yet: a read computes every day from the raw rows, and writes nothing.
    await compare(start, end);
    expect(await keptDays()).toBe(0);
    // The write side keeps six days of searches and of 404s; reads answer from them, the same.
    await keep();
    expect(await keptDays()).toBe(12);
    await compare(start, end);
    // New failures on days already kept: reads compute those days again, and so does the next keep.
    await send(randomEvents(next, start + dayMs, 150, visitorIds));
    await compare(start, end);
    await keep();
    await compare(start, end);
    // Partial days at both ends come from the raw rows, whole days between from the kept ones.
    await compare(start + Math.floor(1.5 * dayMs), start + Math.floor(4.25 * dayMs) + 17);
    // A rebuild drops the kept days; the list computes them again, the same.
    await rebuildProject(context.analytics, tenant.project.id);
    expect(await keptDays()).toBe(0);
    await compare(start, end);
    await keep();
    expect(await keptDays()).toBe(12);
    // Retention: 404s go up to a time inside the third day, searches and feedback by whole days before it;
    // the kept evidence follows (the third day's 404s are computed again from what is left).
    const now = Date.now();
    const cutoff = start + Math.floor(2.4 * dayMs);
    await purgeExpiredEvents(storage, (now - cutoff) / dayMs, now);
    await purgeExpiredInteractions(storage, (now - cutoff) / dayMs, now);
    const kept = sent.filter(({ item }) => item === null || item.first >= (item.source === 'notFound' ? cutoff : dayOf(cutoff) * dayMs));
    sent.splice(0, sent.length, ...kept);
    await compare(start, end);
    await keep();
    await compare(start, end);
  });

  it('reads long ranges from blocks of 8 and 32 days, falls back to their days when they go stale, and purges them', async () => {
    tenant = await createTenant(storage);
    sent.length = 0;
    const first = (dayOf(Date.now()) - 80) * dayMs;
    for (let offset = 0; offset < 72; offset += 6) await send(randomEvents(next, first + offset * dayMs, 40, visitorIds));
    const end = first + 72 * dayMs;
    const keep = () => keepGapEvidence(context.analytics, tenant.project.id, { from: first, to: end });
    const blockRows = async () =>
      Number(
        (
          await storage.db
            .selectFrom('analytics_gap_days')
            .innerJoin('analytics_projects', 'analytics_projects.project_key', 'analytics_gap_days.project_key')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('analytics_projects.project_id', '=', tenant.project.id)
            .where('analytics_gap_days.source', '>=', 2)
            .executeTakeFirstOrThrow()
        ).count,
      );
    await keep();
    // 72 days hold at least eight aligned blocks of 8 days and one of 32, for each source.
    expect(await blockRows()).toBeGreaterThanOrEqual(2 * (8 + 1));
    await compare(first, end);
    // The list reads the blocks, not their days: emptied day rows inside whole blocks change nothing (and, deleted, are computed again).
    const projectKey = Number(
      (await storage.db.selectFrom('analytics_projects').select('project_key').where('project_id', '=', tenant.project.id).executeTakeFirstOrThrow())
        .project_key,
    );
    const inBlocks = (eb: ExpressionBuilder<Database, 'analytics_gap_days'>) =>
      eb.and([
        eb('project_key', '=', projectKey),
        eb('source', '<', 2),
        eb('day', '>=', Math.ceil(dayOf(first) / 8) * 8),
        eb('day', '<', Math.floor(dayOf(end) / 8) * 8),
      ]);
    const emptied = await storage.db.updateTable('analytics_gap_days').set({ units: '[]', senders: new Uint8Array() }).where(inBlocks).executeTakeFirst();
    expect(Number(emptied.numUpdatedRows)).toBeGreaterThan(40);
    await compare(first, end);
    await storage.db.deleteFrom('analytics_gap_days').where(inBlocks).execute();
    // A range shifted by a few days, with partial days at its ends, reads other blocks and days, the same.
    await compare(first + Math.floor(3.3 * dayMs), end - Math.floor(5.6 * dayMs));
    // New failures inside kept blocks: the blocks are stale, their days answer until the next keep.
    await send(randomEvents(next, first + 20 * dayMs, 60, visitorIds));
    await compare(first, end);
    await keep();
    await compare(first, end);
    // Retention drops blocks that start before the cutoff; the rest of the range is read from days and later blocks.
    const now = Date.now();
    const cutoff = first + Math.floor(30.5 * dayMs);
    await purgeExpiredEvents(storage, (now - cutoff) / dayMs, now);
    await purgeExpiredInteractions(storage, (now - cutoff) / dayMs, now);
    const kept = sent.filter(({ item }) => item === null || item.first >= (item.source === 'notFound' ? cutoff : dayOf(cutoff) * dayMs));
    sent.splice(0, sent.length, ...kept);
    await compare(first, end);
    await keep();
    await compare(first, end);
  });
});
