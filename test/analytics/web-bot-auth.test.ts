import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLifetime, KeyDirectories } from '../../src/analytics/ingest/verify/key-directories.ts';
import { signatureAgentOrigin } from '../../src/analytics/ingest/verify/web-bot-auth.ts';
import { Verification } from '../../src/analytics/model/verification.ts';
import { isPublicAddress } from '../../src/lib/public-address.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { directoryServer, ed25519Key, host, path, signedHeaders } from '../support/web-bot-auth.ts';

describe('key directories', () => {
  it('connects to no loopback or private host unless allowed, whatever way the host is written', async () => {
    let connections = 0;
    const server = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const strict = new KeyDirectories({ allowPrivate: false, timeoutMs: 2000 });
      for (const origin of [`https://localhost:${port}`, `https://127.0.0.1:${port}`, `https://[::ffff:127.0.0.1]:${port}`, `http://localhost:${port}`]) {
        expect(await strict.keys(origin)).toBeNull();
      }
      expect(connections).toBe(0);
      // The same request with the setting does connect: the refusal above is the guard's, not the network's.
      expect(await new KeyDirectories({ allowPrivate: true, timeoutMs: 2000 }).keys(`https://localhost:${port}`)).toBeNull();
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('knows public addresses from special-purpose ones', () => {
    expect(['8.8.8.8', '2606:4700::1111', '20.171.206.7'].every(isPublicAddress)).toBe(true);
    expect(
      [
        '127.0.0.1',
        '10.1.2.3',
        '172.16.0.1',
        '192.168.1.1',
        '169.254.169.254',
        '100.64.0.1',
        '0.0.0.0',
        '::1',
        '::',
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        'fe80::1',
        'fd00::1',
      ].some(isPublicAddress),
    ).toBe(false);
  });

  it('reads Signature-Agent as a quoted URL, alone or as a dictionary member, and refuses plain http unless allowed', () => {
    expect(signatureAgentOrigin('"https://chatgpt.com"', false)).toBe('https://chatgpt.com');
    expect(signatureAgentOrigin('sig1="https://agent.example/some/path"', false)).toBe('https://agent.example');
    expect(signatureAgentOrigin('"http://agent.example"', false)).toBeNull();
    expect(signatureAgentOrigin('"http://127.0.0.1:8080"', true)).toBe('http://127.0.0.1:8080');
    expect(signatureAgentOrigin('"file:///etc/passwd"', true)).toBeNull();
    expect(signatureAgentOrigin(undefined, true)).toBeNull();
  });

  it('caches a directory as long as its Cache-Control says', () => {
    expect(cacheLifetime('public, max-age=3600')).toBe(3_600_000);
    expect(cacheLifetime('no-store')).toBe(0);
    expect(cacheLifetime(undefined)).toBe(300_000);
    expect(cacheLifetime('max-age=99999999')).toBe(86_400_000);
  });
});

describe.each(testDatabases)('Web Bot Auth on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let strictApp: FastifyInstance;
  let tenant: Tenant;
  let bot: ReturnType<typeof ed25519Key>;
  let stranger: ReturnType<typeof ed25519Key>;
  let directory: Awaited<ReturnType<typeof directoryServer>>;
  let otherDirectory: Awaited<ReturnType<typeof directoryServer>>;
  let brokenDirectory: Awaited<ReturnType<typeof directoryServer>>;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage, { config: { webBotAuthAllowPrivate: true } }));
    strictApp = await testApp(testContext(storage));
    tenant = await createTenant(storage);
    [bot, stranger] = [ed25519Key(), ed25519Key()];
    directory = await directoryServer(() => [bot.publicJwk]);
    otherDirectory = await directoryServer(() => [stranger.publicJwk]);
    brokenDirectory = await directoryServer(
      () => [],
      () => 500,
    );
  });
  afterAll(async () => {
    await Promise.all([app.close(), strictApp.close(), directory.close(), otherDirectory.close(), brokenDirectory.close()]);
    await storage.close();
  });

  /** Posts events to the project's ingestion endpoint; answers the response body. */
  const postEvents = async (events: unknown[], through = app) => {
    const response = await through.inject({
      method: 'POST',
      url: `/v1/analytics/${tenant.project.id}/events`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ events }),
    });
    return response.json() as { accepted: number; rejected: number; errors: unknown[] };
  };

  /** Posts one signed view and answers the verification stored for it. */
  const verificationOf = async (
    headers: Record<string, string>,
    userAgent = 'ExampleAgent/1.0 (+https://agent.example)',
    ip = '198.51.100.9',
    through = app,
    requestPath = path,
  ) => {
    const marker = `/${crypto.randomUUID()}`;
    const signedPath = headers.host === host ? requestPath : marker;
    expect(await postEvents([{ path: signedPath, userAgent, ip, headers, referrer: marker }], through)).toEqual({ accepted: 1, rejected: 0, errors: [] });
    const row = await storage.db.selectFrom('analytics_events').select('verification').where('referrer', '=', marker).executeTakeFirstOrThrow();
    return Number(row.verification);
  };

  it('verifies a view signed with a key of the directory its Signature-Agent names, fetching the directory once', async () => {
    const before = directory.requests;
    expect(await verificationOf(await signedHeaders(bot.privateJwk, directory.origin))).toBe(Verification.verified);
    expect(await verificationOf(await signedHeaders(bot.privateJwk, directory.origin))).toBe(Verification.verified);
    expect(directory.requests - before).toBe(1);
  });

  it('fetches at most 8 directories for one batch: views naming more keep what their IP ranges said', async () => {
    const directories = await Promise.all(Array.from({ length: 12 }, () => directoryServer(() => [bot.publicJwk])));
    try {
      const markers = directories.map(() => `/${crypto.randomUUID()}`);
      const events = await Promise.all(
        directories.map(async (each, index) => ({
          path,
          userAgent: 'ExampleAgent/1.0 (+https://agent.example)',
          ip: '198.51.100.9',
          headers: await signedHeaders(bot.privateJwk, each.origin),
          referrer: markers[index],
        })),
      );
      expect(await postEvents(events)).toMatchObject({ accepted: 12, rejected: 0 });
      expect(directories.map((each) => each.requests)).toEqual([...Array(8).fill(1), ...Array(4).fill(0)]);
      const rows = await storage.db.selectFrom('analytics_events').select(['referrer', 'verification']).where('referrer', 'in', markers).execute();
      const verification = new Map(rows.map((row) => [row.referrer, Number(row.verification)]));
      expect(markers.map((marker) => verification.get(marker) === Verification.verified)).toEqual([...Array(8).fill(true), ...Array(4).fill(false)]);
    } finally {
      await Promise.all(directories.map((each) => each.close()));
    }
  });

  it('does not verify a signature made with a key the directory does not publish', async () => {
    expect(await verificationOf(await signedHeaders(stranger.privateJwk, directory.origin))).toBe(Verification.unknown);
  });

  it('does not verify a signature whose Signature-Agent names a directory holding another key', async () => {
    const headers = await signedHeaders(bot.privateJwk, otherDirectory.origin);
    expect(await verificationOf(headers)).toBe(Verification.unknown);
  });

  it('does not verify an expired signature', async () => {
    expect(await verificationOf(await signedHeaders(bot.privateJwk, directory.origin, 60_000, 120_000))).toBe(Verification.unknown);
  });

  it('does not verify a signature replayed after it expired, though it was valid when first seen', async () => {
    const headers = await signedHeaders(bot.privateJwk, directory.origin, 1500);
    expect(await verificationOf(headers)).toBe(Verification.verified);
    await sleep(2000);
    expect(await verificationOf(headers)).toBe(Verification.unknown);
  });

  it('does not verify a signature replayed by another visitor or for another path; the same request seen twice still verifies', async () => {
    // A lifetime no other test uses: this signature is this test's alone.
    const headers = await signedHeaders(bot.privateJwk, directory.origin, 299_000);
    const agent = 'ExampleAgent/1.0 (+https://agent.example)';
    expect(await verificationOf(headers, agent, '198.51.100.20')).toBe(Verification.verified);
    // The same request captured twice (a drain and the proxy, say): same visitor, same path.
    expect(await verificationOf(headers, agent, '198.51.100.20')).toBe(Verification.verified);
    // Copied and sent from elsewhere, or with another user agent: another visitor.
    expect(await verificationOf(headers, agent, '203.0.113.66')).toBe(Verification.unknown);
    expect(await verificationOf(headers, 'ExampleAgent/2.0', '198.51.100.20')).toBe(Verification.unknown);
    // The signature does not cover the path: moved to another page by its first presenter, it is still a replay.
    expect(await verificationOf(headers, agent, '198.51.100.20', app, '/pricing')).toBe(Verification.unknown);
  });

  it('lets only the first of two visitors presenting one signature in one request verify', async () => {
    const headers = await signedHeaders(bot.privateJwk, directory.origin, 298_000);
    const marker = `/${crypto.randomUUID()}`;
    const agent = 'ExampleAgent/1.0 (+https://agent.example)';
    const answer = await postEvents([
      { path, userAgent: agent, ip: '198.51.100.30', headers, referrer: marker },
      { path, userAgent: agent, ip: '198.51.100.31', headers, referrer: marker },
      { path, userAgent: agent, ip: '198.51.100.30', headers, referrer: marker },
    ]);
    expect(answer).toMatchObject({ accepted: 3 });
    const rows = await storage.db.selectFrom('analytics_events').select('verification').where('referrer', '=', marker).execute();
    expect(rows.map((row) => Number(row.verification)).sort()).toEqual([Verification.unknown, Verification.verified, Verification.verified]);
  });

  it('does not verify a signature moved to another site or with a Signature-Agent changed after signing', async () => {
    const headers = await signedHeaders(bot.privateJwk, directory.origin);
    expect(await verificationOf({ ...headers, host: 'other.example.com' })).toBe(Verification.unknown);
    expect(await verificationOf({ ...headers, 'signature-agent': `"${otherDirectory.origin}"` })).toBe(Verification.unknown);
  });

  it('fetches no directory on a private address unless the setting allows it', async () => {
    const before = directory.requests;
    const headers = await signedHeaders(bot.privateJwk, `${directory.origin.replace('127.0.0.1', 'localhost')}`);
    expect(await verificationOf(headers, undefined, undefined, strictApp)).toBe(Verification.unknown);
    expect(await verificationOf(await signedHeaders(bot.privateJwk, directory.origin), undefined, undefined, strictApp)).toBe(Verification.unknown);
    expect(directory.requests).toBe(before);
  });

  it('stores the event unverified when the directory fails or does not exist', async () => {
    expect(await verificationOf(await signedHeaders(bot.privateJwk, brokenDirectory.origin))).toBe(Verification.unknown);
    expect(await verificationOf(await signedHeaders(bot.privateJwk, 'http://127.0.0.1:9'))).toBe(Verification.unknown);
  });

  it("does not let any directory's signature vouch for GPTBot: the claim is judged by OpenAI's ranges", async () => {
    const gptBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
    expect(await verificationOf(await signedHeaders(bot.privateJwk, directory.origin), gptBot, '198.51.100.9')).toBe(Verification.spoofed);
  });

  it('rejects an event whose headers are not a small object of strings', async () => {
    const answer = await postEvents([
      { path: '/a', headers: Object.fromEntries(Array.from({ length: 33 }, (_value, index) => [`x-header-${index}`, 'v'])) },
      { path: '/a', headers: { host: 42 } },
      { path: '/a', headers: { 'bad header': 'v' } },
      { path: '/a', headers: ['host'] },
      { path: '/a', headers: { 'x-long': 'v'.repeat(5000) } },
    ]);
    expect(answer).toMatchObject({ accepted: 0, rejected: 5 });
  });
});
