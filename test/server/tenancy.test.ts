import { createSharedLink } from '../../src/analytics/query/shared-links.ts';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConnection } from '../../src/accounts/connections.ts';
import { createInvitation } from '../../src/accounts/people/invitations.ts';
import { createPerson } from '../../src/accounts/people/people.ts';
import { createJob } from '../../src/jobs/service.ts';
import { createEndpoint } from '../../src/jobs/webhooks/endpoints.ts';
import { createThread } from '../../src/docs/assistant/threads.ts';
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
  'GET /': 'a redirect to the dashboard, or where the API reference is',
  'GET /favicon.ico': "Quire's icon",
  'GET /favicon.svg': "Quire's icon",
  'GET /healthz': 'liveness, no data',
  'GET /readyz': 'readiness, no data',
  'GET /openapi.json': 'the API description',
  'GET /script.js': 'the browser tracker script',
  'POST /v1/collect': "the tracker's beacon: a project takes views only from its own tracker domains",
  'GET /dashboard/assets/:name': 'stylesheet and script of the dashboard',
  'GET /dashboard/sign-in': 'the sign-in page',
  'POST /dashboard/sign-in': 'redeems a one-time sign-in link',
  'POST /dashboard/sign-in/password': 'password sign-in, rate-limited per address and account',
  'POST /dashboard/sign-in/passkey/options': 'a WebAuthn challenge, before anyone is signed in',
  'POST /dashboard/sign-in/passkey': 'passkey sign-in',
  'GET /dashboard/invitations/:token': 'an invitation link: the token is the secret',
  'POST /dashboard/invitations/:token': 'accepts an invitation: the token is the secret',
  'GET /share/:token': "a shared analytics link: the token is the secret, and it shows only its project's page (test/analytics/shared-links.test.ts)",
  'GET /share/:token/realtime':
    "a shared analytics link's live count: the token is the secret, and it counts only its project (test/dashboard/analytics-sharing.test.ts)",
  'GET /changes/:jobId': 'a redirect to /dashboard/changes/:jobId, the same for every id',
  'POST /v1/analytics/:projectId/drains/:drainId':
    "a host's log batch, authenticated by the drain's own secret (Vercel's signature, a bearer header or ?secret=)",
  'GET /v1/analytics/:projectId/drains/:drainId': "Vercel's check of a drain: its verification code, which proves nothing and counts nothing",
  'OPTIONS /discovery/v1/search/:domain': "a browser's preflight, answered for any origin: it reads nothing",
  'OPTIONS /discovery/v1/page/:domain': "a browser's preflight, answered for any origin: it reads nothing",
  'OPTIONS /discovery/v2/assistant/:domain/message': "a browser's preflight, answered for any origin: it reads nothing",
  'OPTIONS /discovery/v1/assistant/:domain/message': "a browser's preflight, answered for any origin: it reads nothing",
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
  const victimGapId = 'gap_victim0000000000000000000';
  let victimConnectionId: string;
  let victimFeedbackId: string;
  let victimDrain: { id: string; secret: string };
  let victimWebhookId: string;
  let victimDeliveryId: string;
  let victimPersonId: string;
  let victimInvitationId: string;
  let victimThreadId: string;
  const victimPasskeyId = 'victim-passkey-credential';
  let victimSharedLinkId: string;
  const victimToken = `ghp_${randomBytes(18).toString('hex')}`;
  const routes: Route[] = [];

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { secretKey: randomBytes(32), webhooksAllowPrivate: true } });
    app = await testApp(context, { onRoute: (route) => collectRoutes(routes, route) });
    victim = await createTenant(storage, { project: { name: 'Victim secret docs', trackerDomains: ['docs.victim.test'] } });
    attacker = await createTenant(storage, { project: { name: 'Attacker docs' } });
    session = await signIn(app, storage, attacker.orgId);
    victimWebhookId = (await createEndpoint({ db: storage.db, config: context.config }, victim.project, { url: 'http://127.0.0.1:9/victim-hook' })).endpoint.id;
    victimJobId = (await createJob(context, victim.project, { prompt: 'Victim confidential instruction' })).job.id;
    victimDeliveryId = (await storage.db.selectFrom('webhook_deliveries').select('id').executeTakeFirstOrThrow()).id;
    victimConnectionId = (await addConnection(storage.db, context.config, victim.orgId, { kind: 'github-token', account: 'victim-bot', token: victimToken }))
      .id;
    await app.inject({
      method: 'POST',
      url: `/v1/analytics/${victim.project.id}/events`,
      headers: victim.auth,
      payload: { events: [{ kind: 'feedback', path: '/secret', source: 'contextual', comment: 'Victim confidential feedback' }] },
    });
    victimFeedbackId = (await storage.db.selectFrom('analytics_feedback').select('id').executeTakeFirstOrThrow()).id;
    victimDrain = (
      await app.inject({
        method: 'POST',
        url: `/v1/analytics/${victim.project.id}/drains`,
        headers: victim.auth,
        payload: { kind: 'ndjson', name: 'Victim drain' },
      })
    ).json();
    victimPersonId = (await createPerson(storage.db, victim.orgId, { name: 'Victim owner', email: 'owner@victim.test', role: 'owner', passwordHash: null })).id;
    victimInvitationId = (await createInvitation(storage.db, victim.orgId, { role: 'owner', note: 'Victim invitee', hours: 24 })).row.id;
    await storage.db
      .insertInto('person_passkeys')
      .values({ id: victimPasskeyId, person_id: victimPersonId, public_key: 'AAAA', counter: 0, transports: '', created_at: Date.now(), last_used_at: null })
      .execute();
    victimThreadId = (await createThread(storage, victim.project, 'victim-reader')).id;
    victimSharedLinkId = (await createSharedLink(storage.db, victim.project.id)).id;
    await storage.db
      .insertInto('docs_gaps')
      .values({ id: victimGapId, project_id: victim.project.id, kind: 'missing', status: 'open', created_at: Date.now(), updated_at: Date.now() })
      .execute();
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
      docs: victim.project.id,
      job: victimJobId,
      jobs: victimJobId,
      changes: victimJobId,
      keys: victimKeyId,
      connections: victimConnectionId,
      feedback: victimFeedbackId,
      drains: victimDrain.id,
      webhooks: victimWebhookId,
      deliveries: victimDeliveryId,
      people: victimPersonId,
      invitations: victimInvitationId,
      passkeys: victimPasskeyId,
      search: victim.project.id,
      page: victim.project.id,
      sites: victim.project.id,
      assistant: victim.project.id,
      threads: victimThreadId,
      'shared-links': victimSharedLinkId,
      gaps: victimGapId,
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
    // Only this test's schema: the shared PostgreSQL may hold other schemas with other tables.
    const current =
      storage.profile.name === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(storage.db)).rows[0].schema : undefined;
    const tables = (await storage.db.introspection.getTables())
      .filter((table) => current === undefined || table.schema === current)
      .sort((a, b) => a.name.localeCompare(b.name));
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
      'Victim confidential feedback',
      victimDrain.secret,
      'Victim drain',
      victimWebhookId,
      'victim-hook',
      'owner@victim.test',
      'Victim invitee',
    ];
    // Signing out ends the attacker's session, so it goes last.
    const walk = routes
      .filter((route) => !publicRoutes[`${route.method} ${route.url}`])
      .sort((a, b) => Number(a.url.includes('sign-out')) - Number(b.url.includes('sign-out')));
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
          : JSON.stringify(
              url.endsWith('/events')
                ? { events: [{ path: '/stolen', userAgent: 'Mozilla/5.0 Firefox/133.0' }] }
                : route.method === 'PATCH'
                  ? { status: 'dismissed' }
                  : { prompt: 'Leak everything' },
            );
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
    // Feedback rows name the project by its analytics key, which victimRows does not follow.
    expect(await storage.db.selectFrom('analytics_feedback').select(['id', 'status', 'comment']).execute()).toEqual([
      { id: victimFeedbackId, status: 0, comment: 'Victim confidential feedback' },
    ]);
  });
});
