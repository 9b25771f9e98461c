import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeLocal } from '../../src/accounts/local-grants.ts';
import { updateProject } from '../../src/accounts/projects.ts';
import type { AppContext } from '../../src/http/context.ts';
import { createJob } from '../../src/jobs/service.ts';
import { jobBranch } from '../../src/lib/job-branch.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, testApp, testContext, type Tenant } from '../support/app.ts';
import { commitToBareRepository, createBareRepository, git } from '../support/git-repositories.ts';
import { testDatabases } from '../support/storage.ts';
import { signIn } from './session.ts';

describe('the change page of a job on a local repository', () => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let sandbox: string;
  let cookie: string;

  beforeAll(async () => {
    sandbox = mkdtempSync(join(tmpdir(), 'quire-changes-'));
    storage = await testDatabases[0].open();
    context = testContext(storage);
    app = await testApp(context);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
    rmSync(sandbox, { recursive: true, force: true });
  });

  /** An organization granted its own directory of two local repositories, its project on the first. */
  async function localTenant(name: string): Promise<{ tenant: Tenant; first: string; second: string; directory: string }> {
    const directory = join(sandbox, name);
    const first = createBareRepository(join(directory, 'docs.git'));
    const second = createBareRepository(join(directory, 'handbook.git'));
    const tenant = await createTenant(storage, { project: { repository: `file://${first}`, ref: null } });
    await grantAccess(storage, context.config, tenant.orgId, { localDirectories: [directory] });
    cookie = (await signIn(app, storage, tenant.orgId)).cookie;
    return { tenant, first, second, directory };
  }

  /** A job of the project with its branch pushed to `repository`, one file changed. */
  async function pushedJob(tenant: Tenant, repository: string, file: string): Promise<string> {
    const { job } = await createJob(context, tenant.project, { prompt: 'Add a page' });
    git(repository, 'branch', jobBranch(job.id), 'main');
    commitToBareRepository(repository, jobBranch(job.id), { [file]: '# New page\n' }, 'Add a page');
    return job.id;
  }

  const view = (jobId: string, session = cookie) => app.inject({ method: 'GET', url: `/dashboard/changes/${jobId}`, headers: { cookie: session } });

  it('shows the repository the job ran against, after the project moved to another one', async () => {
    const { tenant, first, second } = await localTenant('moved');
    const jobId = await pushedJob(tenant, first, 'docs/first.md');
    await updateProject(storage.db, tenant.project.id, { repository: `file://${second}` });

    const page = await view(jobId);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('docs/first.md');
    expect(page.body).toContain(`<code>file://${first}</code>`);
    expect(page.body).not.toContain(second);
  });

  it('answers the unknown-job 404 once the organization may no longer use the repository', async () => {
    const { tenant, first, directory } = await localTenant('revoked');
    const jobId = await pushedJob(tenant, first, 'docs/revoked.md');
    expect((await view(jobId)).statusCode).toBe(200);

    expect(await revokeLocal(storage.db, tenant.orgId, directory)).toBe(true);
    const revoked = await view(jobId);
    const unknown = await view('job_unknown');
    expect(revoked.statusCode).toBe(404);
    expect(revoked.body).not.toContain('docs/revoked.md');
    expect(revoked.body.replaceAll(jobId, 'ID')).toBe(unknown.body.replaceAll('job_unknown', 'ID'));
  });

  it('answers another organization the same 404, even one granted the same directory', async () => {
    const { tenant, first, directory } = await localTenant('shared');
    const jobId = await pushedJob(tenant, first, 'docs/shared.md');
    const other = await createTenant(storage, { project: { repository: `file://${first}`, ref: null } });
    await grantAccess(storage, context.config, other.orgId, { localDirectories: [directory] });
    const stranger = (await signIn(app, storage, other.orgId)).cookie;

    const foreign = await view(jobId, stranger);
    const unknown = await view('job_unknown', stranger);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body.replaceAll(jobId, 'ID')).toBe(unknown.body.replaceAll('job_unknown', 'ID'));
  });
});
