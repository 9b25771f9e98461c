import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideDocsAccess, requireDocsKey, type DocsAccess } from '../../src/accounts/docs-access.ts';
import { createKey, revokeKey } from '../../src/accounts/keys.ts';
import { createProject, updateProject } from '../../src/accounts/projects.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const bearer = (key: string) => `Bearer ${key}`;
const failure = (access: DocsAccess) => (access.ok ? 'allowed' : access.status);

describe.each(testDatabases)('who may read a project’s docs on $dialect', (database) => {
  let storage: Storage;
  let tenant: Tenant;
  let attacker: Tenant;
  let projectB: string;
  let assistantKey: string;
  let assistantKeyId: string;
  const decide = (authorization: string | undefined, origin?: string, projectId = tenant.project.id) =>
    decideDocsAccess({ storage }, { authorization, origin }, projectId);

  beforeAll(async () => {
    storage = await database.open();
    tenant = await createTenant(storage);
    attacker = await createTenant(storage);
    projectB = (await createProject(storage.db, tenant.orgId, { name: 'Other docs' })).id;
    const created = await createKey(storage.db, tenant.orgId, {
      kind: 'assistant',
      projectIds: [tenant.project.id],
      allowedOrigins: ['https://docs.acme.com'],
    });
    assistantKey = created.key;
    assistantKeyId = created.row.id;
  });
  afterAll(() => storage.close());

  it('lets an assistant key of the project in from its allowed origins and from servers, and says which key', async () => {
    expect(await decide(bearer(assistantKey), 'https://docs.acme.com')).toMatchObject({ ok: true, via: 'assistant', keyId: assistantKeyId });
    expect(await decide(bearer(assistantKey), undefined)).toMatchObject({ ok: true, via: 'assistant' });
    expect(await requireDocsKey({ storage }, { authorization: bearer(assistantKey), origin: undefined }, tenant.project.id)).toMatchObject({ ok: true });
  });

  it('refuses another origin with 403', async () => {
    for (const origin of ['https://evil.example', 'http://docs.acme.com', 'null']) {
      const access = await decide(bearer(assistantKey), origin);
      expect(access).toMatchObject({ ok: false, status: 403, code: 'forbidden' });
    }
  });

  it('answers 401 with a Bearer challenge without a key, with an unknown one, and for a private project whether or not it exists', async () => {
    for (const access of [
      await decide(undefined),
      await decide('Basic abc'),
      await decide(bearer('quire_dsc_' + 'x'.repeat(32))),
      await decide(undefined, undefined, 'prj_unknown'),
    ]) {
      expect(access).toMatchObject({ ok: false, status: 401, code: 'unauthorized', headers: { 'www-authenticate': expect.stringMatching(/^Bearer/) } });
    }
  });

  it('answers 404 to a key that cannot see the project: another organization’s, or an assistant key of another project', async () => {
    expect(failure(await decide(attacker.auth.authorization))).toBe(404);
    expect(failure(await decide(attacker.auth.authorization, undefined, 'prj_unknown'))).toBe(404);
    expect(failure(await decide(bearer(assistantKey), 'https://docs.acme.com', projectB))).toBe(404);
    expect(failure(await decide(bearer(assistantKey), 'https://evil.example', attacker.project.id))).toBe(404);
  });

  it('lets an admin key with read in, and refuses one without it', async () => {
    expect(await decide(tenant.auth.authorization, 'https://anywhere.example')).toMatchObject({ ok: true, via: 'admin' });
    const { key } = await createKey(storage.db, tenant.orgId, { scopes: ['ingest'] });
    expect(failure(await decide(bearer(key)))).toBe(403);
  });

  it('answers public docs without a key, unless a key is required', async () => {
    await updateProject(storage.db, projectB, { docsPublic: true });
    expect(await decide(undefined, 'https://anywhere.example', projectB)).toMatchObject({ ok: true, via: 'public' });
    expect(failure(await requireDocsKey({ storage }, { authorization: undefined, origin: undefined }, projectB))).toBe(401);
    expect(failure(await requireDocsKey({ storage }, { authorization: tenant.auth.authorization, origin: undefined }, projectB))).toBe('allowed');
  });

  it('refuses a revoked assistant key with 401', async () => {
    const { key, row } = await createKey(storage.db, tenant.orgId, { kind: 'assistant', projectIds: [tenant.project.id] });
    expect(failure(await decide(bearer(key)))).toBe('allowed');
    await revokeKey(storage.db, tenant.orgId, row.id);
    expect(failure(await decide(bearer(key)))).toBe(401);
  });
});
