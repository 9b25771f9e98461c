import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJob } from '../../src/jobs/service.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe('the jobs list of a project', () => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let session: SignedIn;
  let failedId: string;
  let activeId: string;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    context = testContext(storage);
    app = await testApp(context);
    tenant = await createTenant(storage);
    session = await signIn(app, storage, tenant.orgId);
    failedId = (await createJob(context, tenant.project, { prompt: 'Rewrite the install guide' })).job.id;
    activeId = (await createJob(context, tenant.project, { prompt: 'Still running' })).job.id;
    await storage.db
      .updateTable('jobs')
      .set({ status: 'failed', error: 'The model provider refused the API key; check OPENAI_API_KEY.' })
      .where('id', '=', failedId)
      .execute();
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const page = (query = '') => app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}/jobs${query}`, headers: { cookie: session.cookie } });

  it('shows why a job failed, in the list', async () => {
    const response = await page();
    expect(response.body).toContain('The model provider refused the API key; check OPENAI_API_KEY.');
  });

  it('calls a local repository\'s change a "Change", not a pull request', async () => {
    const local = (await createJob(context, tenant.project, { prompt: 'A local edit' })).job.id;
    await storage.db
      .updateTable('jobs')
      .set({ status: 'completed', pr_link: `http://127.0.0.1:8080/dashboard/changes/${local}` })
      .where('id', '=', local)
      .execute();
    const list = (await page()).body;
    expect(list).toContain(`<a href="http://127.0.0.1:8080/dashboard/changes/${local}">Change<span class="visually-hidden">`);
    const view = await app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}/jobs/${local}`, headers: { cookie: session.cookie } });
    expect(view.body).toContain('<dt>Change</dt>');
  });

  it("shows a job's repository without the credentials a row stored before they were refused", async () => {
    const job = (await createJob(context, tenant.project, { prompt: 'An old job' })).job.id;
    await storage.db.updateTable('jobs').set({ repository: 'https://x-access-token:ghp_secret123@github.com/acme/docs.git' }).where('id', '=', job).execute();
    const view = await app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}/jobs/${job}`, headers: { cookie: session.cookie } });
    expect(view.statusCode).toBe(200);
    expect(view.body).toContain('github.com/acme/docs.git');
    expect(view.body).not.toContain('ghp_secret123');
  });

  it('filters by status', async () => {
    const failed = await page('?status=failed');
    expect(failed.body).toContain('Rewrite the install guide');
    expect(failed.body).not.toContain('Still running');
    expect(failed.body).toMatch(/href="[^"]*status=failed" aria-current="page"/);
    const archived = await page('?status=archived');
    expect(archived.body).toContain('No archived jobs.');
  });

  it('archives a finished job with its button; an active one has none', async () => {
    const list = (await page()).body;
    expect(list).toContain(`/jobs/${failedId}/archive`);
    expect(list).not.toContain(`/jobs/${activeId}/archive`);
    const archive = await app.inject({
      method: 'POST',
      url: `/dashboard/projects/${tenant.project.id}/jobs/${failedId}/archive`,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: session.csrf }),
    });
    expect(archive.statusCode).toBe(303);
    expect((await storage.db.selectFrom('jobs').select('status').where('id', '=', failedId).executeTakeFirstOrThrow()).status).toBe('archived');
    const refused = await app.inject({
      method: 'POST',
      url: `/dashboard/projects/${tenant.project.id}/jobs/${activeId}/archive`,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: session.csrf }),
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('still active');
  });
});
