import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { updateProject } from '../../src/accounts/projects.ts';
import { importLog } from '../../src/analytics/importers/run.ts';
import { rangeVerification } from '../../src/analytics/ingest/verify/operator-ranges.ts';
import { Verification } from '../../src/analytics/model/verification.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const gptBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
// Inside the shipped gptbot.json (20.171.206.0/24) and googlebot.json (66.249.64.0/27); the others are documentation addresses.
const openAiAddress = '20.171.206.7';
const googleAddress = '66.249.64.5';

describe('verification by published IP ranges', () => {
  it('verifies a claimed operator inside its ranges and calls it spoofed outside them', () => {
    expect(rangeVerification(gptBot, openAiAddress)).toBe(Verification.verified);
    expect(rangeVerification(gptBot, `::ffff:${openAiAddress}`)).toBe(Verification.verified);
    expect(rangeVerification(gptBot, '198.51.100.1')).toBe(Verification.spoofed);
    expect(rangeVerification(googlebot, googleAddress)).toBe(Verification.verified);
    // OpenAI's addresses do not make a view Googlebot: each token has its operator's ranges.
    expect(rangeVerification(googlebot, openAiAddress)).toBe(Verification.spoofed);
  });

  it('leaves unknown what claims no listed operator, and a claim without an address', () => {
    expect(rangeVerification(chrome, openAiAddress)).toBe(Verification.unknown);
    expect(rangeVerification(chrome, '198.51.100.1')).toBe(Verification.unknown);
    expect(rangeVerification(gptBot, undefined)).toBe(Verification.unknown);
    expect(rangeVerification('', openAiAddress)).toBe(Verification.unknown);
  });

  it('cannot judge a token whose source is not downloaded (no copy is shipped for DuckAssistBot or MistralAI-User)', () => {
    expect(rangeVerification('DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)', '198.51.100.1')).toBe(Verification.unknown);
    expect(
      rangeVerification('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)', '198.51.100.1'),
    ).toBe(Verification.unknown);
  });

  it("judges Common Crawl's and Anthropic's crawlers by the shipped copies of their files", () => {
    expect(rangeVerification('CCBot/2.0 (https://commoncrawl.org/faq/)', '18.97.14.90')).toBe(Verification.verified);
    expect(rangeVerification('CCBot/2.0 (https://commoncrawl.org/faq/)', '198.51.100.1')).toBe(Verification.spoofed);
    const claudeUser = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)';
    expect(rangeVerification(claudeUser, '216.73.216.5')).toBe(Verification.verified);
    expect(rangeVerification(claudeUser, '198.51.100.1')).toBe(Verification.spoofed);
    expect(rangeVerification('Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)', '198.51.100.1')).toBe(Verification.spoofed);
  });

  it('does not judge a view from a loopback or private address: a proxy or local client stood between the crawler and Quire', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.1.20', '::1', 'fd00::5']) {
      expect(rangeVerification(gptBot, address), address).toBe(Verification.unknown);
    }
  });

  it("never judges Claude Code by its address: it runs on the developer's machine, though its user agent names Claude-User", () => {
    for (const address of ['198.51.100.1', '216.73.216.5']) {
      expect(rangeVerification('Claude-User (claude-code/2.0.14; +https://support.anthropic.com/)', address)).toBe(Verification.unknown);
    }
  });
});

describe.each(testDatabases)('verified and spoofed views on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let context: AppContext;
  let tenant: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage);
    app = await testApp(context);
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = (events: unknown[]) =>
    app.inject({
      method: 'POST',
      url: `/v1/analytics/${tenant.project.id}/events`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ events }),
    });
  const totals = async (query: string) =>
    (await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/views?${query}`, headers: tenant.auth })).json().totals;
  const storedVerifications = async () =>
    (
      await storage.db
        .selectFrom('analytics_events')
        .innerJoin('analytics_agents', 'analytics_agents.agent_id', 'analytics_events.agent_id')
        .select(['user_agent', 'verification', 'at'])
        .orderBy('at')
        .execute()
    ).map((row) => Number(row.verification));

  it('counts GPTBot from OpenAI as AI and verified, GPTBot from elsewhere nowhere, and browsers as human whatever their address', async () => {
    const day = '2026-04-01';
    const response = await post([
      { timestamp: `${day}T10:00:00Z`, path: '/guide', userAgent: gptBot, ip: openAiAddress },
      { timestamp: `${day}T10:01:00Z`, path: '/guide', userAgent: gptBot, ip: '198.51.100.1' },
      { timestamp: `${day}T10:02:00Z`, path: '/guide', userAgent: chrome, ip: openAiAddress },
      { timestamp: `${day}T10:03:00Z`, path: '/guide', userAgent: chrome, ip: '198.51.100.2' },
    ]);
    expect(response.json()).toEqual({ accepted: 4, rejected: 0, errors: [] });
    expect(await storedVerifications()).toEqual([Verification.verified, Verification.spoofed, Verification.unknown, Verification.unknown]);
    // Whole days (day sets, folded from pending batches) and a partial day (read from the raw events) agree.
    expect(await totals(`dateFrom=${day}&dateTo=2026-04-02`)).toEqual({ human: 2, ai: 1, total: 3 });
    expect(await totals(`dateFrom=${day}T09:00:00Z&dateTo=${day}T11:00:00Z`)).toEqual({ human: 2, ai: 1, total: 3 });
  });

  it('verifies at every entry: the tracker beacon and the log importer judge the client address too', async () => {
    await updateProject(storage.db, tenant.project.id, { trackerDomains: ['docs.acme.test'] });
    const beacon = (remoteAddress: string, marker: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/collect',
        remoteAddress,
        headers: { 'content-type': 'text/plain', origin: 'https://docs.acme.test', 'user-agent': gptBot },
        payload: JSON.stringify({ project: tenant.project.id, url: 'https://docs.acme.test/guide', visitorId: 'v', referrer: marker }),
      });
    expect((await beacon(openAiAddress, 'https://beacon-inside.example/')).statusCode).toBe(204);
    expect((await beacon('198.51.100.3', 'https://beacon-outside.example/')).statusCode).toBe(204);
    const log = [openAiAddress, '198.51.100.4']
      .map((ip, index) => JSON.stringify({ path: '/guide', userAgent: gptBot, ip, referrer: `https://import-${index}.example/` }))
      .join('\n');
    expect(await importLog(context.analytics, tenant.project, 'ndjson', Readable.from([log]))).toMatchObject({ accepted: 2 });
    const stored = await storage.db
      .selectFrom('analytics_events')
      .select(['referrer', 'verification'])
      .where('referrer', 'is not', null)
      .orderBy('referrer')
      .execute();
    expect(stored.map((row) => [row.referrer, Number(row.verification)])).toEqual([
      ['https://beacon-inside.example/', Verification.verified],
      ['https://beacon-outside.example/', Verification.spoofed],
      ['https://import-0.example/', Verification.verified],
      ['https://import-1.example/', Verification.spoofed],
    ]);
  });

  it('stores no raw IP address', async () => {
    const rows = await storage.db.selectFrom('analytics_events').selectAll().execute();
    expect(JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).not.toContain(openAiAddress);
  });
});
