import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../../src/accounts/keys.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { startOpenAiServer, type OpenAiServer } from '../../support/openai-server.ts';
import { testDatabases } from '../../support/storage.ts';
import { fillIndex, startService } from '../serving/support.ts';
import { assistantScript } from './support.ts';

describe.each(testDatabases)('the assistant’s limits on $dialect', (database) => {
  let storage: Storage;
  let model: OpenAiServer;
  let app: FastifyInstance;
  let base: string;
  let tenant: Tenant;
  let key: string;

  beforeAll(async () => {
    storage = await database.open();
    model = await startOpenAiServer(assistantScript);
    ({ app, base } = await startService(storage, {
      openaiBaseUrl: model.url,
      assistantRateLimitPerAddress: 3,
      assistantBodyLimitBytes: 4096,
      metricsToken: 'metrics-token',
    }));
    tenant = await createTenant(storage, { project: { model: 'openai-compatible:test-model' } });
    await fillIndex(storage, tenant.project.id);
    ({ key } = await createKey(storage.db, tenant.orgId, { kind: 'assistant', projectIds: [tenant.project.id] }));
  });
  afterAll(async () => {
    await app.close();
    await model.close();
    await storage.close();
  });

  const ask = (body: unknown) =>
    fetch(`${base}/discovery/v2/assistant/${tenant.project.id}/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
  const question = (text: string) => ({ fp: 'reader', messages: [{ role: 'user', content: text }] });

  it('refuses a body over the limit with 413, saying to send less', async () => {
    const response = await ask(question('x'.repeat(5000)));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload_too_large', error: expect.stringContaining('send less') });
  });

  it('counts failed turns in the metrics by reason', async () => {
    await (await ask(question('broken model?'))).text();
    const metrics = await (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer metrics-token' } })).text();
    expect(metrics).toContain('quire_assistant_turns_failed_total{reason="provider"} 1');
    expect(metrics).toContain('quire_assistant_turns_failed_total{reason="step-limit"} 0');
  });

  const unknownThread = (text: string) => ({ ...question(text), threadId: 'thr_unknown', threadKey: 'thk_wrong' });

  it('refuses a follow-up of an unknown thread with 404 before the limits, so it uses none of the address’s messages', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await ask(unknownThread('configure?'));
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([404, 404, 404]);
  });

  it('answers 429 with Retry-After once the address has used its messages', async () => {
    // The test above it used one of the address's 3 messages; refused requests (413, 404, 409) used none.
    const statuses: number[] = [];
    for (let index = 0; index < 2; index++) {
      const response = await ask(question('configure?'));
      statuses.push(response.status);
      expect(response.headers.get('ratelimit-limit')).toBe('3');
      await response.text();
    }
    const refused = await ask(question('configure?'));
    expect(statuses).toEqual([200, 200]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', error: expect.stringContaining('assistant messages') });
    // A request refused anyway gets its own answer, not the limit's.
    expect((await ask(unknownThread('configure?'))).status).toBe(404);
  });

  it('is 409 project_not_configured without a model', async () => {
    const other = await createTenant(storage);
    const { key: otherKey } = await createKey(storage.db, other.orgId, { kind: 'assistant', projectIds: [other.project.id] });
    const response = await fetch(`${base}/discovery/v2/assistant/${other.project.id}/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${otherKey}` },
      body: JSON.stringify(question('configure?')),
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: 'project_not_configured', error: expect.stringContaining('QUIRE_MODEL') });
  });
});
