import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../../src/accounts/keys.ts';
import { updateProject } from '../../../src/accounts/projects.ts';
import { flushInteractions } from '../../../src/analytics/capture/record.ts';
import type { AppContext } from '../../../src/http/context.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { startOpenAiServer, type OpenAiServer } from '../../support/openai-server.ts';
import { refusingUrl } from '../../support/refusing-url.ts';
import { testDatabases } from '../../support/storage.ts';
import { fillIndex, startService } from '../serving/support.ts';
import { assistantScript, dataStreamParts, lastQuestion, uiChunks, uiMessage } from './support.ts';

describe.each(testDatabases)('the assistant’s answers on $dialect', (database) => {
  let storage: Storage;
  let model: OpenAiServer;
  let app: FastifyInstance;
  let context: AppContext;
  let base: string;
  let tenant: Tenant;
  let other: Tenant;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    storage = await database.open();
    model = await startOpenAiServer(assistantScript);
    ({ app, base, context } = await startService(storage, { model: 'openai-compatible:test-model', openaiBaseUrl: model.url }));
    tenant = await createTenant(storage, { project: { siteUrl: 'https://docs.acme.test', docsPublic: true } });
    other = await createTenant(storage);
    await fillIndex(storage, tenant.project.id);
    ({ key } = await createKey(storage.db, tenant.orgId, { kind: 'assistant', projectIds: [tenant.project.id], allowedOrigins: ['https://docs.acme.test'] }));
    ({ key: otherKey } = await createKey(storage.db, other.orgId, { kind: 'assistant', projectIds: [other.project.id] }));
  });
  afterAll(async () => {
    await app.close();
    await model.close();
    await storage.close();
  });

  const ask = (version: 'v1' | 'v2', body: Record<string, unknown>, headers: Record<string, string> = {}, projectId = tenant.project.id) =>
    fetch(`${base}/discovery/${version}/assistant/${projectId}/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify({ fp: 'reader-1', ...body }),
    });
  const question = (text: string) => ({ id: 'm1', role: 'user', parts: [{ type: 'text', text }] });
  const exportRows = async () =>
    ((await (await fetch(`${base}/v1/analytics/${tenant.project.id}/assistant`, { headers: tenant.auth })).json()) as { conversations: { query: string }[] })
      .conversations;

  it('streams the answer as a UI message stream, with cited sections and the thread in the finish part', async () => {
    const response = await ask(
      'v2',
      { messages: [question('How do I configure webhooks?')], currentPath: '/guides', trigger: 'submit-message', id: 'chat-1' },
      { origin: 'https://docs.acme.test', 'x-quire-assistant': 'web' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://docs.acme.test');
    expect(response.headers.get('access-control-expose-headers')).toBe('X-Thread-Id, X-Thread-Key');
    const threadId = response.headers.get('x-thread-id');
    expect(threadId).toMatch(/^thr_/);
    expect(response.headers.get('x-thread-key')).toMatch(/^thk_/);
    const chunks = await uiChunks(response);
    expect(chunks[0]).toMatchObject({ type: 'start' });
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(1);
    const sources = chunks.filter((chunk) => chunk.type === 'source-url');
    expect(sources).toEqual([{ type: 'source-url', sourceId: 'source-1', url: 'https://docs.acme.test/guides/setup#configure', title: 'Setup' }]);
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', messageMetadata: { threadId } });

    const message = await uiMessage(chunks);
    expect(message.metadata).toEqual({ threadId });
    expect(message.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'Install the CLI, then configure webhooks, as the Setup page says.' });
    expect(message.parts.filter((part) => part.type === 'source-url')).toHaveLength(1);

    const sent = model.requests.at(-1)!;
    expect(sent.tools?.map((tool) => tool.function.name).sort()).toEqual(['list_pages', 'read_page', 'record_outcome', 'search_docs']);
    expect(lastQuestion(sent)).toContain('The reader is on the docs page /guides.');
    expect(JSON.stringify(sent.messages[0])).toContain('Answer only from the documentation');

    // The assistant's own search_docs calls are not search events (the contract's docs gaps count readers' searches),
    // while a reader's discovery search made after it is: once the buffered interactions are written, only that one shows.
    await fetch(`${base}/discovery/v1/search/${tenant.project.id}`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'retry webhooks' }),
    });
    await flushInteractions(context.analytics);
    const searches = (await (await fetch(`${base}/v1/analytics/${tenant.project.id}/searches`, { headers: tenant.auth })).json()) as {
      searches: { searchQuery: string }[];
    };
    expect(searches.searches.map((search) => search.searchQuery)).toEqual(['retry webhooks']);
  });

  it('streams the same answer as an AI SDK 4 data stream from v4 messages', async () => {
    const response = await ask('v1', { messages: [{ role: 'user', content: 'Where do I configure webhooks?' }] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-vercel-ai-data-stream')).toBe('v1');
    const threadId = response.headers.get('x-thread-id');
    const parts = await dataStreamParts(response);
    expect(parts[0].code).toBe('f');
    expect(
      parts
        .filter((part) => part.code === '0')
        .map((part) => part.value)
        .join(''),
    ).toBe('Install the CLI, then configure webhooks, as the Setup page says.');
    expect(parts.filter((part) => part.code === 'h').map((part) => part.value)).toEqual([
      { sourceType: 'url', id: 'source-1', url: 'https://docs.acme.test/guides/setup#configure', title: 'Setup' },
    ]);
    expect(parts.at(-1)).toMatchObject({ code: 'd', value: { finishReason: 'stop', threadId } });
  });

  it('answers with the project’s assistant model when one is set, else the project’s model, else QUIRE_MODEL', async () => {
    const settings = (body: Record<string, unknown>) =>
      fetch(`${base}/v1/projects/${tenant.project.id}`, {
        method: 'PATCH',
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const modelsAsked = async () => {
      const before = model.requests.length;
      await (await ask('v2', { messages: [question('Which model answers when I configure it?')] })).text();
      return [...new Set(model.requests.slice(before).map((request) => request.model))];
    };
    expect(await modelsAsked()).toEqual(['test-model']);
    expect((await settings({ model: 'openai-compatible:project-model' })).status).toBe(200);
    expect(await modelsAsked()).toEqual(['project-model']);
    expect((await settings({ assistantModel: 'openai-compatible:reader-model' })).status).toBe(200);
    expect(await modelsAsked()).toEqual(['reader-model']);
    expect((await settings({ model: null, assistantModel: null })).status).toBe(200);
    expect(await modelsAsked()).toEqual(['test-model']);
  });

  it('records unanswered and clarifying turns as such, each cited only with pages it saw', async () => {
    await (await ask('v2', { messages: [question('What about unknown billing?')] })).text();
    await (await ask('v2', { messages: [question('which plan is it?')] })).text();
    const rows = (await exportRows()) as unknown as {
      query: string;
      resolutionStatus: string;
      responseType: string;
      sources: unknown[];
      queryCategory: string | null;
    }[];
    expect(rows.find((row) => row.query === 'What about unknown billing?')).toMatchObject({
      resolutionStatus: 'unanswered',
      responseType: 'answer',
      sources: [],
      queryCategory: null,
    });
    expect(rows.find((row) => row.query === 'which plan is it?')).toMatchObject({ resolutionStatus: 'answered', responseType: 'clarifying_question' });
    expect(rows.find((row) => row.query === 'How do I configure webhooks?')).toMatchObject({
      sources: [{ title: 'Setup', url: 'https://docs.acme.test/guides/setup#configure' }],
      queryCategory: 'Get started',
      pageUrl: 'https://docs.acme.test/guides',
    });
  });

  it('continues a thread with its key, the model seeing the earlier turn; a wrong key is 404', async () => {
    const first = await ask('v2', { messages: [question('How do I configure webhooks?')] });
    const threadId = first.headers.get('x-thread-id')!;
    const threadKey = first.headers.get('x-thread-key')!;
    await first.text();
    const next = await ask('v2', { threadId, threadKey, messages: [question('And which one comes first?')] });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-thread-id')).toBe(threadId);
    expect(next.headers.get('x-thread-key')).toBeNull();
    await next.text();
    const sent = model.requests.at(-1)!;
    const contents = sent.messages.map((message) => JSON.stringify(message.content ?? ''));
    expect(contents.some((content) => content.includes('How do I configure webhooks?'))).toBe(true);
    expect(contents.some((content) => content.includes('Install the CLI, then configure webhooks'))).toBe(true);

    for (const wrong of [{ threadId, threadKey: 'thk_wrong' }, { threadId }, { threadId: 'thr_nothing', threadKey }]) {
      const refused = await ask('v2', { ...wrong, messages: [question('Again?')] });
      expect(refused.status).toBe(404);
      expect(await refused.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it('needs a key of the project even for public docs, from an allowed origin; preflight for any origin', async () => {
    const body = { messages: [question('configure?')] };
    expect((await ask('v2', body, { authorization: '' })).status).toBe(401);
    const foreign = await ask('v2', body, { authorization: `Bearer ${otherKey}` });
    expect(foreign.status).toBe(404);
    const wrongOrigin = await ask('v2', body, { origin: 'https://evil.test' });
    expect(wrongOrigin.status).toBe(403);
    expect(await wrongOrigin.json()).toMatchObject({ code: 'forbidden' });
    const viaAdmin = await ask('v1', body, tenant.auth);
    expect(viaAdmin.status).toBe(200);
    await viaAdmin.text();

    const preflight = await fetch(`${base}/discovery/v2/assistant/${tenant.project.id}/message`, {
      method: 'OPTIONS',
      headers: { origin: 'https://anywhere.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://anywhere.test');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-quire-assistant');
  });

  it('refuses a body whose last message is not the user’s, and ignores fields it does not name', async () => {
    const refused = await ask('v2', { messages: [question('configure?'), { role: 'assistant', parts: [{ type: 'text', text: 'Hi' }] }] });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_request', details: [{ path: '/messages/1/role' }] });
    const tooMany = await ask('v2', { messages: Array.from({ length: 101 }, () => question('configure?')) });
    expect(tooMany.status).toBe(400);
    const accepted = await ask('v2', {
      messages: [{ ...question('configure?'), metadata: { x: 1 } }],
      filter: { tag: 'v2' },
      context: [{ type: 'code', value: 'quire init', elementId: 'e1' }],
    });
    expect(accepted.status).toBe(200);
    await accepted.text();
    expect(lastQuestion(model.requests.at(-1)!)).toContain('quire init');
  });

  it('refuses a question or currentPath holding a NUL or a lone surrogate with 400, before the model runs', async () => {
    const calls = model.requests.length;
    for (const body of [
      { messages: [question('configure\u0000?')] },
      { messages: [question('configure \ud800?')] },
      { messages: [question('configure?')], currentPath: '/guides/\u0000setup' },
    ]) {
      const refused = await ask('v2', body);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: 'invalid_request', error: expect.stringMatching(/NUL character or an unpaired UTF-16 surrogate/) });
    }
    expect(model.requests.length).toBe(calls);
  });

  it('ends the stream with an error part on a provider failure or the step limit, and exports neither', async () => {
    const before = (await exportRows()).length;
    const failed = await uiChunks(await ask('v2', { messages: [question('broken model?')] }));
    expect(failed.at(-1)).toMatchObject({ type: 'error', errorText: expect.stringContaining('The model provider failed') });
    const looping = await dataStreamParts(await ask('v1', { messages: [{ role: 'user', content: 'search forever' }] }));
    expect(looping.at(-1)).toMatchObject({ code: '3', value: expect.stringContaining('QUIRE_ASSISTANT_MAX_STEPS') });
    expect((await exportRows()).length).toBe(before);
  });

  it('names the cause of a provider failure and the setting to check, without the provider’s words, key or address', async () => {
    const errorOf = async (response: Response) => (await uiChunks(response)).at(-1) as { type: string; errorText: string };
    const refused = await errorOf(await ask('v2', { messages: [question('rejected key?')] }));
    expect(refused).toEqual({
      type: 'error',
      errorText: "The model provider refused the server's key (HTTP 401); the site's operator should check OPENAI_API_KEY.",
    });
    const unknownModel = await errorOf(await ask('v2', { messages: [question('missing model?')] }));
    expect(unknownModel.errorText).toBe(
      "The model provider does not know the model (HTTP 404); the site's operator should check QUIRE_MODEL and OPENAI_BASE_URL.",
    );

    await updateProject(storage.db, other.project.id, { assistantModel: 'openai-compatible:other-model' });
    const ownModel = await fetch(`${base}/discovery/v2/assistant/${other.project.id}/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${otherKey}` },
      body: JSON.stringify({ fp: 'reader-2', messages: [question('missing model?')] }),
    });
    expect((await errorOf(ownModel)).errorText).toContain("should check the project's assistant model and OPENAI_BASE_URL");
    await updateProject(storage.db, other.project.id, { assistantModel: null });

    const offline = await startService(storage, { model: 'openai-compatible:test-model', openaiBaseUrl: await refusingUrl() });
    try {
      const response = await fetch(`${offline.base}/discovery/v2/assistant/${tenant.project.id}/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ fp: 'reader-1', messages: [question('anyone there?')] }),
      });
      expect((await errorOf(response)).errorText).toBe(
        "The model provider could not be reached; the site's operator should check OPENAI_BASE_URL and the server's network.",
      );
    } finally {
      await offline.app.close();
    }
  });

  it('stores the thread a failed first turn started, so its key still continues it', async () => {
    const failed = await ask('v2', { messages: [question('broken model on the first turn?')] });
    const threadId = failed.headers.get('x-thread-id')!;
    const threadKey = failed.headers.get('x-thread-key')!;
    expect((await uiChunks(failed)).at(-1)).toMatchObject({ type: 'error' });
    const next = await ask('v2', { threadId, threadKey, messages: [question('How do I configure webhooks, then?')] });
    expect(next.status).toBe(200);
    expect((await uiChunks(next)).at(-1)).toMatchObject({ type: 'finish', messageMetadata: { threadId } });
    const thread = (await (await fetch(`${base}/v1/analytics/${tenant.project.id}/assistant/threads/${threadId}`, { headers: tenant.auth })).json()) as {
      messages: { role: string; content: string }[];
    };
    expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(thread.messages[0].content).toBe('How do I configure webhooks, then?');
  });

  it('stops the model call when the client goes away', async () => {
    const abandonedBefore = model.abandoned;
    const response = await ask('v2', { messages: [question('slow answer?')] });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"type":"start"');
    await reader.cancel();
    await expect.poll(() => model.abandoned, { timeout: 8000 }).toBe(abandonedBefore + 1);
    expect((await exportRows()).some((row) => row.query === 'slow answer?')).toBe(false);
  });
});
