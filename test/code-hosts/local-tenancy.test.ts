import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantLocal } from '../../src/accounts/local-grants.ts';
import { createOrganization } from '../../src/accounts/organizations.ts';
import { resolveAccess } from '../../src/code-hosts/access.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testApp, testConfig, testContext } from '../support/app.ts';
import { createBareRepository } from '../support/git-repositories.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';
import { form, signIn } from '../dashboard/session.ts';

const run = promisify(execFile);

describe.each(testDatabases)('local repositories belong to the organizations granted them, on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let root: string;
  let dataDir: string;
  let orgA: string;
  let orgB: string;
  let app: FastifyInstance;
  const paths = {} as Record<'aDocs' | 'bDocs' | 'escape' | 'dotdot' | 'mirror', string>;

  const cli = (...args: string[]) =>
    run(process.execPath, ['src/cli/main.ts', ...args], { env: { ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...storage.location.env } });
  const cliFails = async (...args: string[]) => {
    const failure = await cli(...args).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure, `quire ${args.join(' ')} should fail`).not.toBeNull();
    expect(failure!.code).toBe(1);
    return failure!.stderr;
  };
  const projectCount = async (orgId: string) => (await storage.db.selectFrom('projects').select('id').where('org_id', '=', orgId).execute()).length;

  beforeAll(async () => {
    storage = await database.open();
    root = realpathSync(mkdtempSync(join(tmpdir(), 'quire-tenancy-')));
    dataDir = storage.location.env.QUIRE_DATA_DIR ?? join(root, 'data');
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    paths.aDocs = createBareRepository(join(root, 'a/docs.git'));
    paths.bDocs = createBareRepository(join(root, 'b/docs.git'));
    // A link inside A's directory that leads to B's repository, and a path that climbs out of it.
    paths.escape = join(root, 'a/escape.git');
    symlinkSync(paths.bDocs, paths.escape);
    paths.dotdot = `${join(root, 'a')}/../b/docs.git`;
    paths.mirror = createBareRepository(join(dataDir, 'mirrors/0123abcd'));
    orgA = (await createOrganization(storage.db, 'A')).id;
    orgB = (await createOrganization(storage.db, 'B')).id;
    await grantLocal(storage.db, dataDir, orgA, join(root, 'a'));
    await grantLocal(storage.db, dataDir, orgB, join(root, 'b'));
    app = await testApp(testContext(storage, { config: { dataDir } }));
  });
  afterAll(async () => {
    await app?.close();
    await storage.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('CLI: A saves a project on its own granted repository, never on B’s, through a link, a “..” or a file:// URL', async () => {
    const created = JSON.parse((await cli('projects', 'create', '--org', orgA, '--name', 'Own', '--repository', paths.aDocs, '--json')).stdout);
    expect(created.repository).toBe(paths.aDocs);
    for (const repository of [paths.bDocs, `file://${paths.bDocs}`, paths.escape, paths.dotdot]) {
      expect(await cliFails('projects', 'create', '--org', orgA, '--name', 'Stolen', '--repository', repository)).toMatch(
        new RegExp(`may not use the local repository.*quire orgs grant-local ${orgA}`),
      );
    }
    expect(await cliFails('projects', 'update', created.id, '--repository', paths.bDocs)).toMatch(/may not use the local repository/);
    expect(await projectCount(orgA)).toBe(1);
  });

  it('CLI: nothing under the data directory, even for a trusted organization or a grant that holds it', async () => {
    expect(await cliFails('projects', 'create', '--org', orgA, '--name', 'Mirror', '--repository', paths.mirror)).toMatch(/inside Quire's data directory/);
    expect(await cliFails('orgs', 'grant-local', orgA, dataDir)).toMatch(/data directory/);
    expect(await cliFails('orgs', 'grant-local', orgA, dirname(dataDir))).toMatch(/data directory/);
    // A grant written straight into the database still does not open the data directory.
    await storage.db
      .insertInto('local_grants')
      .values({ org_id: orgB, path: dirname(dataDir), created_at: Date.now() })
      .execute();
    const trusted = testConfig({ dataDir, trustFirstOrganization: true });
    await expect(resolveAccess(storage.db, trusted, orgB, paths.mirror)).rejects.toThrow(/inside Quire's data directory/);
    await storage.db.deleteFrom('local_grants').where('path', '=', dirname(dataDir)).execute();
  });

  it('CLI: grants are listed by orgs show and orgs list, and a revoked grant refuses the next save', async () => {
    const shown = JSON.parse((await cli('orgs', 'show', orgB, '--json')).stdout);
    expect(shown).toMatchObject({ id: orgB, serverCredentials: false, localRepositories: [join(root, 'b')], connections: [] });
    const listed = JSON.parse((await cli('orgs', 'list', '--json')).stdout);
    expect(listed.find((row: { id: string }) => row.id === orgA).localRepositories).toEqual([join(root, 'a')]);
    // The trusted first organization uses the server-wide credentials: listed as having them.
    await storage.db.updateTable('organizations').set({ first_start: 1 }).where('id', '=', orgA).execute();
    const trustedEnv = { ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...storage.location.env, QUIRE_TRUST_FIRST_ORGANIZATION: '1' };
    const withTrust = JSON.parse((await run(process.execPath, ['src/cli/main.ts', 'orgs', 'list', '--json'], { env: trustedEnv })).stdout);
    const trustedRows = withTrust.filter((row: { trusted: boolean }) => row.trusted);
    expect(trustedRows).toHaveLength(1);
    expect(trustedRows[0].serverCredentials).toBe(true);
    expect(trustedRows[0].id).toBe(orgA);
    expect(withTrust.filter((row: { trusted: boolean; serverCredentials: boolean }) => !row.trusted && row.serverCredentials)).toEqual([]);
    await storage.db.updateTable('organizations').set({ first_start: 0 }).where('id', '=', orgA).execute();
    await cli('projects', 'create', '--org', orgB, '--name', 'B docs', '--repository', paths.bDocs);
    await cli('orgs', 'revoke-local', orgB, join(root, 'b'));
    expect(await cliFails('projects', 'create', '--org', orgB, '--name', 'B again', '--repository', paths.bDocs)).toMatch(/may not use the local repository/);
    await grantLocal(storage.db, dataDir, orgB, join(root, 'b'));
  });

  it('the first-start organization reaches any local repository only under QUIRE_TRUST_FIRST_ORGANIZATION', async () => {
    const first = (await createOrganization(storage.db, 'First', { firstStart: true })).id;
    await expect(resolveAccess(storage.db, testConfig({ dataDir }), first, paths.bDocs)).rejects.toThrow(/may not use the local repository/);
    await expect(resolveAccess(storage.db, testConfig({ dataDir, trustFirstOrganization: true }), first, paths.bDocs)).resolves.toMatchObject({
      repository: paths.bDocs,
    });
  });

  it('dashboard: A’s project form refuses B’s repository, a link out of A’s directory and the data directory', async () => {
    const session = await signIn(app, storage, orgA);
    const headers = { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' };
    const before = await projectCount(orgA);
    for (const repository of [paths.bDocs, paths.escape, paths.dotdot, paths.mirror]) {
      const response = await app.inject({
        method: 'POST',
        url: '/dashboard/projects',
        headers,
        payload: form({ csrf: session.csrf, name: 'Stolen', repository }),
      });
      expect(response.statusCode, repository).toBe(400);
      expect(response.body).toMatch(
        repository === paths.mirror ? /inside Quire&#39;s data directory|inside Quire's data directory/ : /may not use the local repository/,
      );
    }
    expect(await projectCount(orgA)).toBe(before);
    const own = await storage.db.selectFrom('projects').selectAll().where('org_id', '=', orgA).executeTakeFirstOrThrow();
    const update = await app.inject({
      method: 'POST',
      url: `/dashboard/projects/${own.id}`,
      headers,
      payload: form({ csrf: session.csrf, name: own.name, repository: paths.escape }),
    });
    expect(update.statusCode).toBe(400);
    expect((await storage.db.selectFrom('projects').select('repository').where('id', '=', own.id).executeTakeFirstOrThrow()).repository).toBe(paths.aDocs);
    const created = await app.inject({
      method: 'POST',
      url: '/dashboard/projects',
      headers,
      payload: form({ csrf: session.csrf, name: 'Own again', repository: `file://${paths.aDocs}` }),
    });
    expect(created.statusCode).toBe(303);
  });
});
