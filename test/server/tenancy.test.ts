import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConnection } from '../../src/accounts/connections.ts';
import { createJob } from '../../src/jobs/service.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from '../dashboard/session.ts';

/**
 * Routes anyone may call, each with the reason; every other route of the route table is walked by
 * the attacker below. A new public route must be added here on purpose.
 */
const publicRoutes: Record<string, string> = {
  'GET /healthz': 'liveness, no data',
  'GET /readyz': 'readiness, no data',
  'GET /openapi.json': 'the API description',
  'GET /script.js': 'the browser tracker script',
  'POST /v1/collect': "the tracker's beacon: a project takes views only from its own tracker domains",
  'GET /dashboard/assets/:name': 'stylesheet and script of the dashboard',
  'GET /dashboard/sign-in': 'the sign-in page',
  'POST /dashboard/sign-in': 'redeems a one-time sign-in link',
  'GET /changes/:jobId': 'a redirect to /dashboard/changes/:jobId, the same for every id',
};

interface Route {
  method: string;
  url: string;
}

/** Every route with its method, as the app registered them (HEAD twins and the API reference's static files aside). */
function collectRoutes(routes: Route[], route: { method: string | string[]; url: string }): void {
  for (const method of [route.method].flat()) {
    if (method === 'HEAD' || route.url.startsWith('/docs')) continue;
    routes.push({ method, url: route.url });
  }
}

/**
 * An attacker organization with an admin key holding every scope and a dashboard session walks every
 * route with the victim's ids in the path. It must see nothing of the victim and change nothing.
 */
describe.each(testDatabases)('tenancy across the whole route table on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let victim: Tenant;
  let attacker: Tenant;
  let session: SignedIn;
  let victimJobId: string;
  let victimKeyId: string;
  let victimConnectionId: string;
  const victimToken = `ghp_${randomBytes(18).toString('hex')}`;
  const routes: Route[] = [];

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { secretKey: randomBytes(32) } });
    app = await testApp(context, { onRoute: (route) => collectRoutes(routes, route) });
    victim = await createTenant(storage, { project: { name: 'Victim secret docs', trackerDomains: ['docs.victim.test'] } });
    attacker = await createTenant(storage, { project: { name: 'Attacker docs' } });
    session = await signIn(app, storage, attacker.orgId);
    victimJobId = (await createJob(context, victim.project, { prompt: 'Victim confidential instruction' })).job.id;
    victimConnectionId = (await addConnection(storage.db, context.config, victim.orgId, { kind: 'github-token', account: 'victim-bot', token: victimToken }))
      .id;
    victimKeyId = (await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', victim.orgId).executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  /** The victim's id for each path parameter, chosen by the path segment before it. */
  function fill(url: string): string {
    const ids: Record<string, string> = {
      agent: victim.project.id,
      analytics: victim.project.id,
      projects: victim.project.id,
      job: victimJobId,
      jobs: victimJobId,
      changes: victimJobId,
      keys: victimKeyId,
      connections: victimConnectionId,
    };
    return url.replace(/([^/]+)\/:(\w+)/g, (_match, segment: string, name: string) => {
      const id = ids[segment];
      if (!id) throw new Error(`The tenancy test does not know which victim id fills ":${name}" after "${segment}/" in ${url}; add it to fill().`);
      return `${segment}/${encodeURIComponent(id)}`;
    });
  }

  /** Every row of every table that names the victim's organization, project or job. */
  async function victimRows(): Promise<string> {
    // Sorted: the order in which the database lists its tables may differ between calls.
    const tables = (await storage.db.introspection.getTables()).sort((a, b) => a.name.localeCompare(b.name));
    const owners: [string, string][] = [
      ['org_id', victim.orgId],
      ['project_id', victim.project.id],
      ['job_id', victimJobId],
    ];
    const snapshot: Record<string, unknown[]> = {};
    for (const table of tables) {
      for (const [column, value] of owners) {
        if (!table.columns.some((candidate) => candidate.name === column)) continue;
        const rows = await storage.db
          .selectFrom(table.name as 'jobs')
          .selectAll()
          .where(column as 'id', '=', value)
          .execute();
        snapshot[`${table.name}.${column}`] = rows;
      }
    }
    return JSON.stringify(snapshot);
  }

  it('lists the routes it walks, and knows every public one', () => {
    expect(routes.length).toBeGreaterThan(20);
    for (const signature of Object.keys(publicRoutes)) expect(routes.map((route) => `${route.method} ${route.url}`)).toContain(signature);
  });

  it("answers another organization's key and session with 404 on every route that names the victim, and changes nothing", async () => {
    const before = await victimRows();
    const secrets = [
      victim.project.id,
      'Victim secret docs',
      victimJobId,
      'Victim confidential instruction',
      victimKeyId,
      victim.orgId,
      victim.key,
      victimConnectionId,
      'victim-bot',
      victimToken,
    ];
    // Signing out ends the attacker's session, so it goes last.
    const walk = routes
      .filter((route) => !publicRoutes[`${route.method} ${route.url}`])
      .sort((a, b) => Number(a.url.endsWith('sign-out')) - Number(b.url.endsWith('sign-out')));
    let walked = 0;
    for (const route of walk) {
      const url = fill(route.url);
      const dashboard = url.startsWith('/dashboard');
      const headers: Record<string, string> = { ...attacker.auth, cookie: session.cookie };
      let payload: string | undefined;
      if (route.method !== 'GET') {
        headers['content-type'] = dashboard ? 'application/x-www-form-urlencoded' : 'application/json';
        payload = dashboard
          ? form({ csrf: session.csrf, name: 'Taken over', prompt: 'Leak everything', scopes: 'read', projects: victim.project.id })
          : JSON.stringify(url.endsWith('/events') ? { events: [{ path: '/stolen', userAgent: 'Mozilla/5.0 Firefox/133.0' }] } : { prompt: 'Leak everything' });
      }
      const response = await app.inject({ method: route.method as 'GET', url, headers, payload });
      const label = `${route.method} ${route.url} as ${url}`;
      // An id the attacker put in the path may be echoed back in the 404; nothing else of the victim may show.
      for (const secret of secrets.filter((value) => !url.includes(encodeURIComponent(value)))) expect(response.body, label).not.toContain(secret);
      if (url !== route.url) expect(response.statusCode, label).toBe(404);
      walked += 1;
    }
    expect(walked).toBe(walk.length);
    expect(await victimRows()).toBe(before);
  });
});
