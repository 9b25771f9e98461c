import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setServerCredentials } from '../../src/accounts/local-grants.ts';
import { createProject } from '../../src/accounts/projects.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { signIn, type SignedIn } from './session.ts';

/** The checklist's items as `mark label` lines. */
function checklist(page: string): string[] {
  return [...page.matchAll(/<li class="(ready|missing)">.*?<strong>([^<]+)<\/strong>/g)].map((match) => `${match[1]} ${match[2]}`);
}

describe('the "ready for jobs" checklist of a project', () => {
  let storage: Storage;
  let tenant: Tenant;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    tenant = await createTenant(storage, { project: { model: 'openai-compatible:llama3' } });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await storage.close();
  });

  async function settingsPage(config: Parameters<typeof testContext>[1], projectId = tenant.project.id): Promise<string> {
    const app = await testApp(testContext(storage, config));
    apps.push(app);
    const session: SignedIn = await signIn(app, storage, tenant.orgId);
    return (await app.inject({ method: 'GET', url: `/dashboard/projects/${projectId}`, headers: { cookie: session.cookie } })).body;
  }

  it('says what is missing, and which settings are server-wide and need a restart', async () => {
    const page = await settingsPage({});
    expect(page).toContain('Before this project can run jobs');
    expect(checklist(page)).toEqual(['ready Repository', 'ready Model', 'missing Model provider', 'missing Code host']);
    expect(page).toContain('needs OPENAI_BASE_URL');
    expect(page).toContain('once the server and its workers restart');
  });

  it('lists a missing repository first', async () => {
    const bare = await createProject(storage.db, tenant.orgId, { name: 'Empty' });
    expect(checklist(await settingsPage({}, bare.id))[0]).toBe('missing Repository');
  });

  it('says "Ready for jobs" once everything is in place', async () => {
    await setServerCredentials(storage.db, tenant.orgId, true);
    const page = await settingsPage({ config: { openaiBaseUrl: 'http://127.0.0.1:11434/v1', githubToken: 'ghp_readinessTest' } });
    expect(checklist(page)).toEqual(['ready Repository', 'ready Model', 'ready Model provider', 'ready Code host']);
    expect(page).toContain('Ready for jobs');
  });
});
