import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { testApp, testContext } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

/**
 * No other site may frame a Quire page (clickjacking), and no answer is read as another type than it
 * says (a served Markdown page holding <script>): every answer says so, HTML pages first.
 */
describe('framing', () => {
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

  it.each([
    '/docs',
    '/docs/',
    '/dashboard/sign-in',
    '/dashboard/no-such-page',
    '/changes/job_unknown',
    '/v2/agent/prj_x/jobs',
    '/script.js',
    '/sites/prj_x/llms.txt',
    '/sites/prj_x/guides/setup.md',
  ])('%s sends frame-ancestors none, X-Frame-Options DENY and nosniff', async (url) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode, url).toBeLessThan(500);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toMatch(/(?:^|;\s*)frame-ancestors 'none'(?:;|$)/);
    expect(policy.match(/frame-ancestors/g)).toHaveLength(1);
  });

  it('serves the API reference as an HTML page', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs' });
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it.each([
    ['/sites/prj_x/%zz.md', /malformed percent-encoding/],
    [`/sites/${'x'.repeat(5000)}/llms.txt`, /longer than any identifier/],
  ])('answers a URL refused before routing (%#) with the error body of every other answer', async (url, message) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: expect.stringMatching(message), code: 'invalid_request' });
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(String(response.headers['content-security-policy'])).toMatch(/frame-ancestors 'none'/);
  });
});
