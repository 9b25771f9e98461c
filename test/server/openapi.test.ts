import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../../src/storage/dialect.ts';
import { testApp, testContext } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

describe('service endpoints', () => {
  let storage: Storage;
  let app: FastifyInstance;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    app = await testApp(testContext(storage));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  it('serves an OpenAPI 3.1 document with every agent-job operation', async () => {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v2/agent/{projectId}/job',
        '/v2/agent/{projectId}/job/{id}',
        '/v2/agent/{projectId}/job/{id}/message',
        '/v2/agent/{projectId}/jobs',
        '/v2/agent/{projectId}/job/{id}/archive',
        '/v2/agent/{projectId}/job/{id}/messages',
      ]),
    );
    expect(document.paths['/v2/agent/{projectId}/job'].post.responses['201']).toBeDefined();
    // The job object describes whether its pull request is a draft and the problems its checks still report.
    const job = document.paths['/v2/agent/{projectId}/job/{id}'].get.responses['200'].content['application/json'].schema;
    expect(job.required).toEqual(expect.arrayContaining(['draft', 'problems']));
    expect(job.properties.draft.type).toBe('boolean');
    expect(job.properties.problems).toMatchObject({ type: 'array', maxItems: 50, items: { required: ['file', 'line', 'message'] } });
    expect(document.paths['/v1/projects/{projectId}/readiness'].get.responses['200']).toBeDefined();
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('serves a readable reference page at /docs', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });

  it('reports liveness and readiness', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready', database: 'sqlite' });
  });

  it('answers unknown routes with the error body', async () => {
    const response = await app.inject({ method: 'GET', url: '/v3/nothing' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });

  it('answers 503 on /readyz when the database is gone', async () => {
    const broken = await testDatabases[0].open();
    const brokenApp = await testApp(testContext(broken));
    await broken.close();
    const response = await brokenApp.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    await brokenApp.close();
  });
});
