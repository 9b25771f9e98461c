import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server.ts';
import { testDatabases } from '../support/storage.ts';
import { assistantScript, uiChunks } from '../docs/assistant/support.ts';
import { fillIndex, startService } from '../docs/serving/support.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe.each(testDatabases)('the dashboard’s Assistant tab on $dialect', (database) => {
  let storage: Storage;
  let model: OpenAiServer;
  let app: FastifyInstance;
  let base: string;
  let tenant: Tenant;
  let other: Tenant;
  let session: SignedIn;
  let otherSession: SignedIn;

  beforeAll(async () => {
    storage = await database.open();
    model = await startOpenAiServer(assistantScript);
    ({ app, base } = await startService(storage, { model: 'openai-compatible:test-model', openaiBaseUrl: model.url }));
    tenant = await createTenant(storage, { project: { siteUrl: 'https://docs.acme.test' } });
    other = await createTenant(storage);
    await fillIndex(storage, tenant.project.id);
    session = await signIn(app, storage, tenant.orgId);
    otherSession = await signIn(app, storage, other.orgId);
  });
  afterAll(async () => {
    await app.close();
    await model.close();
    await storage.close();
  });

  const ask = (body: unknown, as: SignedIn = session, headers: Record<string, string> = {}) =>
    fetch(`${base}/dashboard/projects/${tenant.project.id}/assistant/ask`, {
      method: 'POST',
      headers: { cookie: as.cookie, 'x-csrf-token': as.csrf, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const page = (path: string, as: SignedIn = session) =>
    app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}/assistant${path}`, headers: { cookie: as.cookie } });

  it('streams the playground’s answer as the UI message stream and stores it as the other caller', async () => {
    const response = await ask({ text: 'How do I configure webhooks?' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const threadId = response.headers.get('x-thread-id')!;
    const chunks = await uiChunks(response);
    expect(chunks.filter((chunk) => chunk.type === 'source-url')).toMatchObject([{ url: 'https://docs.acme.test/guides/setup#configure' }]);
    const follow = await ask({ text: 'What about unknown billing?', threadId, threadKey: response.headers.get('x-thread-key') });
    expect(follow.headers.get('x-thread-id')).toBe(threadId);
    await follow.text();

    const all = await page('');
    expect(all.body).toContain('How do I configure webhooks?');
    expect(all.body).toMatch(/Other \(integrations, this playground\)<\/th><td class="number">2</);
    const unanswered = await page('?filter=unanswered');
    expect(unanswered.body).toContain('What about unknown billing?');
    expect(unanswered.body).not.toContain('How do I configure webhooks?');
    const thread = await page(`/threads/${threadId}`);
    expect(thread.statusCode).toBe(200);
    expect(thread.body).toContain('Install the CLI, then configure webhooks');
    expect(thread.body).toContain('href="https://docs.acme.test/guides/setup#configure"');
  });

  it('refuses a question without the session’s CSRF token, an empty one, and another organization’s project or thread', async () => {
    expect((await ask({ text: 'configure?' }, session, { 'x-csrf-token': 'wrong' })).status).toBe(403);
    expect((await ask({ text: '  ' })).status).toBe(400);
    expect((await ask({ text: 'configure?', threadId: 'thr_nothing', threadKey: 'thk_nothing' })).status).toBe(404);
    expect((await ask({ text: 'configure?' }, otherSession)).status).toBe(404);
    expect((await page('', otherSession)).statusCode).toBe(404);
    const threadId = /threads\/(thr_\w+)/.exec((await page('')).body)![1];
    expect((await page(`/threads/${threadId}`, otherSession)).statusCode).toBe(404);
  });

  it('generates an assistant key of the project shown once in the snippet, once per form', async () => {
    const formId = 'a'.repeat(32);
    const generate = () =>
      app.inject({
        method: 'POST',
        url: `/dashboard/projects/${tenant.project.id}/assistant/key`,
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ csrf: session.csrf, form: formId, origins: 'https://docs.acme.test' }),
      });
    const created = await generate();
    expect(created.statusCode).toBe(200);
    // The snippet is shown as text, so its quotes are escaped in the page.
    expect(created.body).toMatch(new RegExp(`data-project=&quot;${tenant.project.id}&quot; data-key=&quot;quire_dsc_\\w+&quot;`));
    expect((await generate()).statusCode).toBe(409);
    const later = await page('');
    expect(later.body).not.toMatch(/data-key=&quot;quire_dsc_/);
    expect(later.body).toContain('data-key=&quot;YOUR_ASSISTANT_KEY&quot;');
    expect(later.body).toContain('from https://docs.acme.test');
  });
});
