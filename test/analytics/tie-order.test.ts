import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import { realtime } from '../../src/analytics/query/dimensions.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases, type TestDatabase } from '../support/storage.ts';

const start = Date.UTC(2026, 6, 1);
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

/**
 * Names that tie, whose orders differ: by UTF-16 code unit an astral character (U+1F600, stored as the
 * surrogates D83D DE00) comes before U+FF21, by code point after it; a locale collation such as en_US puts
 * `a` before `B` and, ignoring punctuation at first, `ab` before `a.c`, where code points put them the other way round.
 */
const paths = ['/b', '/\u{1F600}', '/B', '/z', '/\uFF21', '/a', '/a.c', '/ab', '/\u{1F600}x', '/\uFF21x'];
const hosts = ['a.c.example', 'ab.example', 'a-d.example', 'a0.example', 'z.example'];
/** Search queries that tie the same ways, as normalized (lower case, NFKC, which would turn U+FF21 into `a`: U+E000 stands in for it). */
const queries = ['b', '\u{1F600}', 'z', '\uE000', 'a', 'a.c', 'ab', '\u{1F600}x', '\uE000x'];

/** The documented order of names: by code point, which is the order of their UTF-8 bytes. */
const byCodePoint = (names: string[]) => [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

/**
 * The dialects, and on PostgreSQL also text compared by a locale, as in a database created with `en_US`: the
 * columns get an ICU collation that, like glibc's en_US, lets case and punctuation only break ties.
 */
const variants: { name: string; database: TestDatabase; locale?: string }[] = testDatabases.flatMap((database) =>
  database.dialect === 'postgres'
    ? [
        { name: 'postgres', database },
        { name: 'postgres with en_US text', database, locale: 'en-US-u-ka-shifted' },
      ]
    : [{ name: database.dialect, database }],
);

describe.each(variants)('ties in rankings, filtered or not, on $name', ({ database, locale }) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  const range = `dateFrom=${new Date(start).toISOString()}&dateTo=${new Date(start + 86_400_000).toISOString()}`;

  beforeAll(async () => {
    storage = await database.open();
    if (locale !== undefined) {
      // Created in the test's own schema, which is dropped with it.
      await sql`create collation locale_text (provider = icu, locale = ${sql.lit(locale)})`.execute(storage.db);
      await sql`alter table analytics_paths alter column path type text collate locale_text`.execute(storage.db);
      await sql`alter table analytics_referrers alter column host type text collate locale_text`.execute(storage.db);
      await sql`alter table analytics_feedback alter column path type text collate locale_text`.execute(storage.db);
      await sql`alter table analytics_feedback_days alter column path type text collate locale_text`.execute(storage.db);
      await sql`alter table analytics_search_days alter column query type text collate locale_text`.execute(storage.db);
    }
    context = testContext(storage, { config: { analyticsRateLimit: 100_000 } });
    app = await testApp(context);
    tenant = await createTenant(storage);
    // One visitor per page and per referring site, so every row ties with the others; `/` has one per site and leads.
    const views = [
      ...paths.map((path, index) => ({ path, referrer: undefined, visitor: `p${index}` })),
      ...hosts.map((host, index) => ({ path: '/', referrer: `https://${host}/`, visitor: `r${index}` })),
    ];
    const prepared = prepareAll(
      views.map((view, index) => ({ timestamp: start + index * 1000, path: view.path, visitorId: view.visitor, userAgent: firefox, referrer: view.referrer })),
    );
    expect(prepared.errors).toEqual([]);
    await storeEvents(context.analytics, tenant.project, prepared.events);
    // One thumbs-up per page and one search per query, so they tie; `clicked` is searched twice and leads, its clicks tied between two pages.
    const interactions = [
      ...paths.map((path) => ({ kind: 'feedback', source: 'thumbs_only', path, helpful: true })),
      ...queries.map((query) => ({ kind: 'search', query, hits: 1 })),
      ...['/\u{1F600}', '/\uFF21'].map((clickedPath, index) => ({ kind: 'search', query: 'clicked', hits: 3, searchId: `s${index}`, clickedPath })),
    ];
    const stored = await app.inject({
      method: 'POST',
      url: `/v1/analytics/${tenant.project.id}/events`,
      headers: tenant.auth,
      payload: { events: interactions.map((event, index) => ({ ...event, timestamp: start + index * 1000 })) },
    });
    expect(stored.json()).toMatchObject({ accepted: interactions.length, rejected: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  const get = async (operation: string, parameters: string) => {
    const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/${operation}?${range}&${parameters}`, headers: tenant.auth });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  // Unfiltered, the day sets and breakdown days answer in memory; one browser filter, or two filters, send the query to the raw events in SQL.
  const filterSets = {
    none: '',
    browser: '&filter=browser%3D%3DFirefox',
    'browser and os': '&filter=browser%3D%3DFirefox&filter=os%3D%3DLinux',
  };
  /** What `read` answers under each filter set, beside what each should be, so a failure shows every order at once. */
  const each = async (read: (filters: string) => Promise<string[]>) => {
    const answers: Record<string, string[]> = {};
    for (const [name, filters] of Object.entries(filterSets)) answers[name] = await read(filters);
    return answers;
  };
  const everywhere = (names: string[]) => Object.fromEntries(Object.keys(filterSets).map((name) => [name, names]));
  const pages = ['/', ...byCodePoint(paths)];

  it('orders tied pages by code point, filtered as unfiltered', async () => {
    for (const measure of ['visitors', 'views']) {
      const answers = await each(async (filters) => (await get(measure, `limit=250${filters}`))[measure].map((row: { path: string }) => row.path));
      expect(answers, measure).toEqual(everywhere(pages));
    }
  });

  it('pages through ties in that order', async () => {
    const answers = await each(async (filters) => {
      const paged: string[] = [];
      for (let offset = 0; offset < pages.length; offset += 3)
        paged.push(...(await get('visitors', `limit=3&offset=${offset}${filters}`)).visitors.map((row: { path: string }) => row.path));
      return paged;
    });
    expect(answers).toEqual(everywhere(pages));
  });

  it('orders tied entry pages and referrers by code point, filtered as unfiltered', async () => {
    const entries = await each(async (filters) =>
      (await get('breakdown', `property=entry_page&limit=250${filters}`)).results.map((row: { value: string }) => row.value),
    );
    expect(entries).toEqual(everywhere(pages));
    const referrers = await each(async (filters) => (await get('referrers', `limit=250${filters}`)).referrers.map((row: { referrer: string }) => row.referrer));
    expect(referrers).toEqual(everywhere(byCodePoint(hosts)));
  });

  it('orders the realtime pages the same way', async () => {
    const live = await realtime(context.analytics, tenant.project.id, start + (paths.length + hosts.length) * 1000);
    expect(live.pages.map((page) => page.path)).toEqual(pages);
  });

  it('orders tied feedback pages and searches by code point, page after page', async () => {
    const feedback = (await get('feedback/by-page', 'limit=250')).feedback.map((row: { path: string }) => row.path);
    const pagedFeedback: string[] = [];
    for (let offset = 0; offset < paths.length; offset += 3)
      pagedFeedback.push(...(await get('feedback/by-page', `limit=3&offset=${offset}`)).feedback.map((row: { path: string }) => row.path));
    const searches = await get('searches', 'limit=100');
    const pagedSearches: string[] = [];
    for (let cursor = ''; pagedSearches.length <= queries.length;) {
      const page = await get('searches', `limit=3${cursor}`);
      pagedSearches.push(...page.searches.map((row: { searchQuery: string }) => row.searchQuery));
      if (page.nextCursor === null) break;
      cursor = `&cursor=${page.nextCursor}`;
    }
    expect({ feedback, pagedFeedback, searches: searches.searches.map((row: { searchQuery: string }) => row.searchQuery), pagedSearches }).toEqual({
      feedback: byCodePoint(paths),
      pagedFeedback: byCodePoint(paths),
      searches: ['clicked', ...byCodePoint(queries)],
      pagedSearches: ['clicked', ...byCodePoint(queries)],
    });
    // The page a query's searches clicked most, its ties by code point too.
    expect(searches.searches[0]).toMatchObject({ searchQuery: 'clicked', topClickedPage: '/\uFF21' });
  });
});
