import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setServerCredentials } from '../../src/accounts/local-grants.ts';
import { createProject } from '../../src/accounts/projects.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { probeModel } from '../../src/llm/probe.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.ts';
import { testDatabases } from '../support/storage.ts';
import { signIn, type SignedIn } from './session.ts';

/** The checklist's items as `mark label` lines. */
function checklist(page: string): string[] {
  return [...page.matchAll(/<li class="(ready|missing)">.*?<strong>([^<]+)<\/strong>/g)].map((match) => `${match[1]} ${match[2]}`);
}

describe('the "ready for jobs" checklist of a project', () => {
  let storage: Storage;
  let tenant: Tenant;
  let model: OpenAiServer;
  /** A port nothing listens on: a model server that is down. */
  let closedUrl: string;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    tenant = await createTenant(storage, { project: { model: 'openai-compatible:llama3' } });
    // Answers like an OpenAI-compatible server; a model named `refused` gets the 401 of a wrong key.
    model = await startOpenAiServer((request) => (request.model === 'refused' ? { status: 401, message: 'Incorrect API key provided' } : { text: 'OK' }));
    const closed = await startOpenAiServer(() => ({ text: 'OK' }));
    closedUrl = closed.url;
    await closed.close();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await model.close();
    await storage.close();
  });

  async function appWith(config: Parameters<typeof testContext>[1]): Promise<FastifyInstance> {
    const app = await testApp(testContext(storage, config));
    apps.push(app);
    return app;
  }

  async function settingsPage(config: Parameters<typeof testContext>[1], projectId = tenant.project.id): Promise<string> {
    const app = await appWith(config);
    const session: SignedIn = await signIn(app, storage, tenant.orgId);
    return (await app.inject({ method: 'GET', url: `/dashboard/projects/${projectId}`, headers: { cookie: session.cookie } })).body;
  }

  it('says what is missing, and which settings are server-wide and need a restart', async () => {
    const page = await settingsPage({});
    expect(page).toContain('Before this project can run jobs');
    expect(checklist(page)).toEqual(['ready Repository', 'ready Model', 'missing Model provider', 'missing Model answers', 'missing Code host']);
    expect(page).toContain('needs OPENAI_BASE_URL');
    expect(page).toContain('once the server and its workers restart');
  });

  it('lists a missing repository first', async () => {
    const bare = await createProject(storage.db, tenant.orgId, { name: 'Empty' });
    expect(checklist(await settingsPage({}, bare.id))[0]).toBe('missing Repository');
  });

  it('says "Ready for jobs" once everything is in place and the model answers, with the time its call took, asked once for a while', async () => {
    await setServerCredentials(storage.db, tenant.orgId, true);
    const config = { config: { openaiBaseUrl: model.url, githubToken: 'ghp_readinessTest' } };
    const page = await settingsPage(config);
    expect(checklist(page)).toEqual(['ready Repository', 'ready Model', 'ready Model provider', 'ready Model answers', 'ready Code host']);
    expect(page).toContain('Ready for jobs');
    expect(page).toMatch(/openai-compatible:llama3 answered a one-token request in \d+ ms \(checked just now\)/);
    expect(model.requests).toEqual([expect.objectContaining({ model: 'llama3', max_tokens: 1 })]);
    // Reloaded, and through the API: the answer is reused, the provider is not asked again.
    expect(checklist(await settingsPage(config))).toContain('ready Model answers');
    const app = await appWith(config);
    const response = await app.inject({ method: 'GET', url: `/v1/projects/${tenant.project.id}/readiness`, headers: tenant.auth });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      ready: true,
      checks: [
        { name: 'repository', label: 'Repository', ok: true, detail: 'https://github.com/acme/docs', ms: null },
        { name: 'model', label: 'Model', ok: true, detail: 'openai-compatible:llama3 (this project)', ms: null },
        { name: 'provider', label: 'Model provider', ok: true, detail: 'configured for openai-compatible:llama3', ms: null },
        { name: 'endpoint', label: 'Model answers', ok: true, detail: expect.stringMatching(/answered a one-token request in \d+ ms/), ms: expect.any(Number) },
        { name: 'codeHost', label: 'Code host', ok: true, detail: 'Quire can reach the repository', ms: null },
      ],
    });
    expect(model.requests).toHaveLength(1);
  });

  it('is not ready while the model server is down or refuses the key, and says so with the time it took', async () => {
    const down = { config: { openaiBaseUrl: closedUrl, githubToken: 'ghp_readinessTest' } };
    const page = await settingsPage(down);
    expect(page).toContain('Before this project can run jobs');
    expect(checklist(page)).toEqual(['ready Repository', 'ready Model', 'ready Model provider', 'missing Model answers', 'ready Code host']);
    expect(page).toMatch(
      /openai-compatible:llama3 did not answer a one-token request after \d+ ms \(checked just now\): the provider could not be reached \(ECONNREFUSED\)/,
    );
    expect(page).toContain('Check that the provider is running and reachable from the server');

    const refused = await createTenant(storage, { project: { model: 'openai-compatible:refused' } });
    await setServerCredentials(storage.db, refused.orgId, true);
    const app = await appWith({ config: { openaiBaseUrl: model.url, githubToken: 'ghp_readinessTest' } });
    const response = await app.inject({ method: 'GET', url: `/v1/projects/${refused.project.id}/readiness`, headers: refused.auth });
    expect(response.json().ready).toBe(false);
    expect(response.json().checks[3]).toEqual({
      name: 'endpoint',
      label: 'Model answers',
      ok: false,
      detail: expect.stringContaining('the provider answered HTTP 401: Incorrect API key provided'),
      ms: expect.any(Number),
    });
    // Another organization's project is not found, and its key cannot read this one.
    expect((await app.inject({ method: 'GET', url: `/v1/projects/${tenant.project.id}/readiness`, headers: refused.auth })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/v1/projects/${refused.project.id}/readiness` })).statusCode).toBe(401);
  });

  it('gives up on a model that does not answer within the time limit', async () => {
    const slow = await startOpenAiServer(() => ({ text: 'OK', delayMs: 2_000 }));
    try {
      const probe = await probeModel('openai-compatible:llama3', { openaiBaseUrl: slow.url, openaiApiKey: undefined, anthropicApiKey: undefined }, 200);
      expect(probe).toMatchObject({ ok: false, detail: 'no answer within 0.2 s' });
      expect(probe.ms).toBeGreaterThanOrEqual(190);
      expect(probe.ms).toBeLessThan(1_500);
    } finally {
      await slow.close();
    }
  });
});
