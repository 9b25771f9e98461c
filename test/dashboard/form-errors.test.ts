import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe('dashboard forms say what to fix beside the field', () => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;
  let session: SignedIn;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    app = await testApp(testContext(storage));
    tenant = await createTenant(storage);
    session = await signIn(app, storage, tenant.orgId);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = (url: string, fields: Record<string, string | string[]>) =>
    app.inject({
      method: 'POST',
      url,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: session.csrf, ...fields }),
    });

  it('puts a key form error beside its field, keeps what was typed, and shows the form above the table', async () => {
    const response = await post('/dashboard/keys', { name: 'Deploy', scopes: 'read', allowedIps: '10.0.0.0/99' });
    expect(response.statusCode).toBe(400);
    const field = response.body.indexOf('id="key-ips"');
    const error = response.body.indexOf('id="allowedIps-error"');
    expect(field).toBeGreaterThan(0);
    expect(error).toBeGreaterThan(field);
    expect(response.body).toMatch(/id="key-ips"[^>]*aria-invalid="true"/);
    expect(response.body).toContain('value="Deploy"');
    expect(response.body.indexOf('id="generate"')).toBeLessThan(response.body.indexOf('id="keys"'));
  });

  it('shows a form sent twice as a notice, not an error', async () => {
    const fields = { name: 'Twice', scopes: 'read', form: 'a'.repeat(32) };
    expect((await post('/dashboard/keys', fields)).statusCode).toBe(200);
    const again = await post('/dashboard/keys', fields);
    expect(again.statusCode).toBe(409);
    expect(again.body).toMatch(/class="notice warning" role="status">This form was already sent/);
    expect(again.body).not.toContain('role="alert"');
  });

  it('puts a project form error beside its field', async () => {
    const response = await post(`/dashboard/projects/${tenant.project.id}`, { name: 'Docs', trackerDomains: 'not a host!' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toMatch(/id="project-trackerDomains"[^>]*aria-invalid="true"/);
    expect(response.body).toMatch(/id="project-trackerDomains-error" role="alert">&quot;host!&quot; is not a host name/);
  });

  it('saves the asset rule of a project and shows it again, and puts a bad extension change beside its field', async () => {
    const saved = await post(`/dashboard/projects/${tenant.project.id}`, { name: 'Docs', skipAssets: 'off', assetExtensions: '+PDF, -svg' });
    expect(saved.statusCode).toBe(303);
    const row = await storage.db
      .selectFrom('projects')
      .select(['skip_assets', 'asset_extensions'])
      .where('id', '=', tenant.project.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ skip_assets: 0, asset_extensions: '+pdf -svg' });
    const page = await app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}`, headers: { cookie: session.cookie } });
    expect(page.body).toMatch(/<option value="off" selected>Counted as views<\/option>/);
    expect(page.body).toMatch(/id="project-assetExtensions" name="assetExtensions" value="\+pdf, -svg"/);

    const refused = await post(`/dashboard/projects/${tenant.project.id}`, { name: 'Docs', skipAssets: 'on', assetExtensions: '+p/df' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/id="project-assetExtensions"[^>]*aria-invalid="true"/);
    expect(refused.body).toContain('id="project-assetExtensions-error" role="alert"');
    // Nothing was saved by the refused form.
    expect(await storage.db.selectFrom('projects').select('skip_assets').where('id', '=', tenant.project.id).executeTakeFirstOrThrow()).toEqual({
      skip_assets: 0,
    });
  });
});
