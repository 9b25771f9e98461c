import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

describe('validation errors a person can read', () => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    app = await testApp(testContext(storage));
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const get = (query: string) => app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/jobs?${query}`, headers: tenant.auth });

  it('names the query parameter and what it must be, not "querystring is invalid"', async () => {
    const response = await get('limit=500');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request', error: 'The query parameter limit must be <= 100.' });
    expect(response.json().error).not.toContain('querystring');
  });

  it('lists the known parameters when one is unknown', async () => {
    const response = await get('limt=5');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: 'The query parameter limt is not known; the known ones are limit, cursor, status.',
      details: [{ path: '/limt', message: 'is not known; the known ones are limit, cursor, status' }],
    });
  });

  it('lists the allowed values of an enum or a union of constants, keeping the code and status', async () => {
    const category = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/agents?category=foo`, headers: tenant.auth });
    expect(category.statusCode).toBe(400);
    expect(category.json()).toEqual({
      code: 'invalid_request',
      error: 'The query parameter category must be one of training, search, assistant, agent, coding, other.',
      details: [{ path: '/category', message: 'must be one of training, search, assistant, agent, coding, other' }],
    });

    const status = await get('status=foo');
    expect(status.statusCode).toBe(400);
    expect(status.json()).toEqual({
      code: 'invalid_request',
      error: 'The query parameter status must be one of active, completed, archived, failed.',
      details: [{ path: '/status', message: 'must be one of active, completed, archived, failed' }],
    });

    const compare = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/visitors?compare=next`, headers: tenant.auth });
    expect(compare.statusCode).toBe(400);
    expect(compare.json().error).toBe('The query parameter compare must be previous_period.');

    const kind = await app.inject({
      method: 'POST',
      url: '/v1/collect',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ project: tenant.project.id, url: 'https://docs.example.com/', visitorId: 'v', kind: 'click' }),
    });
    expect(kind.statusCode).toBe(400);
    expect(kind.json()).toMatchObject({ code: 'invalid_request', error: 'The field kind must be one of feedback, search.' });
  });

  it('lists the known fields of a body with an unknown one', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/job`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ prompt: 'Hello', promt: 'typo' }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatch(/^The field promt is not known; the known ones are prompt\b/);
  });
});
