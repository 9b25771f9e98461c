import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/accounts/keys.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { quireCommands } from '../support/cli.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

describe.each(testDatabases)('quire projects docs settings and assistant keys on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let dataDir: string;
  let commands: ReturnType<typeof quireCommands>;
  let orgId: string;
  let project: { id: string; mcpName: string };
  const json = async (...args: string[]) => JSON.parse((await commands.quire(...args, '--json')).stdout);

  beforeAll(async () => {
    storage = await database.open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-cli-docs-'));
    commands = quireCommands({ ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...storage.location.env });
    orgId = (await json('orgs', 'create', '--name', 'Acme')).id;
    project = await json('projects', 'create', '--org', orgId, '--name', 'Acme Docs!');
  });
  afterAll(async () => {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives a project the docs settings defaults, with an MCP name unique in the organization', async () => {
    expect(project).toMatchObject({ siteUrl: null, docsPublic: false, mcpName: 'acme_docs' });
    expect((await json('projects', 'create', '--org', orgId, '--name', 'acme docs')).mcpName).toBe('acme_docs_2');
    const listed = await json('projects', 'list', '--org', orgId);
    expect(listed.map((row: { mcpName: string }) => row.mcpName)).toEqual(['acme_docs', 'acme_docs_2']);
  });

  it('sets, shows and clears them with projects update', async () => {
    const updated = await json('projects', 'update', project.id, '--site-url', 'https://docs.acme.com', '--docs-public', 'on', '--mcp-name', 'handbook');
    expect(updated).toMatchObject({ siteUrl: 'https://docs.acme.com', docsPublic: true, mcpName: 'handbook' });
    const shown = (await commands.quire('projects', 'show', project.id)).stdout;
    expect(shown).toContain('Site URL: https://docs.acme.com');
    expect(shown).toContain('Docs public: on');
    expect((await commands.quire('projects', 'update', project.id, '--site-url', '')).stdout).toMatch(
      /Site URL: http:\/\/.*\/sites\/prj_\w+ \(the site surface on Quire\)/,
    );
    await commands.quire('projects', 'update', project.id, '--site-url', 'https://docs.acme.com');
    expect(shown).toContain('MCP name: handbook');
    expect(await json('projects', 'update', project.id, '--site-url', '', '--docs-public', 'off')).toMatchObject({
      siteUrl: null,
      docsPublic: false,
      mcpName: 'handbook',
    });
  });

  it('sets, shows and clears the assistant model, refusing one that is not provider:model', async () => {
    expect(await json('projects', 'update', project.id, '--assistant-model', 'openai:gpt-4.1-mini')).toMatchObject({ assistantModel: 'openai:gpt-4.1-mini' });
    expect((await commands.quire('projects', 'show', project.id)).stdout).toContain('Assistant model: openai:gpt-4.1-mini');
    expect(await commands.quireFails('projects', 'update', project.id, '--assistant-model', 'gpt-4.1-mini')).toMatch(/Assistant model: .*provider:model/);
    expect((await json('projects', 'update', project.id, '--assistant-model', '')).assistantModel).toBeNull();
    expect((await commands.quire('projects', 'show', project.id)).stdout).toContain('Assistant model: (the project model)');
  });

  it('refuses invalid or taken values with a sentence saying what to give', async () => {
    expect(await commands.quireFails('projects', 'update', project.id, '--mcp-name', 'acme_docs_2')).toMatch(
      /"acme_docs_2" is taken by project prj_\w+.*such as acme_docs_2_2/,
    );
    expect(await commands.quireFails('projects', 'update', project.id, '--mcp-name', 'Hand Book')).toMatch(/1 to 40 lower-case letters/);
    expect(await commands.quireFails('projects', 'update', project.id, '--docs-public', 'maybe')).toMatch(/--docs-public takes on or off/);
    expect(await commands.quireFails('projects', 'update', project.id, '--site-url', 'ftp://docs.acme.com')).toMatch(/site URL is the https:\/\//);
    expect((await json('projects', 'show', project.id)).mcpName).toBe('handbook');
  });

  it('creates assistant keys bound to one project, stored as a hash, listed and revoked like admin keys', async () => {
    const created = await json(
      'keys',
      'create',
      '--org',
      orgId,
      '--kind',
      'assistant',
      '--project',
      project.id,
      '--origins',
      'https://docs.acme.com, https://acme.com/',
    );
    expect(created).toMatchObject({ kind: 'assistant', scopes: [], projectIds: [project.id], allowedOrigins: ['https://docs.acme.com', 'https://acme.com'] });
    expect(created.key).toMatch(/^quire_dsc_[0-9A-Za-z]{32}$/);
    const row = await storage.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.hash).toBe(hashKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);
    const listed = await json('keys', 'list', '--org', orgId);
    expect(listed.find((key: { id: string }) => key.id === created.id)).toMatchObject({ kind: 'assistant', revokedAt: null });
    await commands.quire('keys', 'revoke', created.id);
    expect((await json('keys', 'list', '--org', orgId)).find((key: { id: string }) => key.id === created.id).revokedAt).not.toBeNull();
  });

  it('refuses an assistant key without one project or with scopes, origins on an admin key, and an origin with a path', async () => {
    expect(await commands.quireFails('keys', 'create', '--org', orgId, '--kind', 'assistant')).toMatch(/--project/);
    expect(await commands.quireFails('keys', 'create', '--org', orgId, '--origins', 'https://docs.acme.com')).toMatch(/--kind assistant/);
    expect(
      await commands.quireFails('keys', 'create', '--org', orgId, '--kind', 'assistant', '--project', project.id, '--origins', 'https://acme.com/docs'),
    ).toMatch(/--origins: "https:\/\/acme.com\/docs" is not a browser origin/);
    expect(await commands.quireFails('keys', 'create', '--org', orgId, '--kind', 'robot')).toMatch(/--kind is admin or assistant/);
    expect(await commands.quireFails('keys', 'create', '--org', orgId, '--kind', 'assistant', '--project', project.id, '--scopes', 'read')).toMatch(
      /--scopes is for admin keys/,
    );
  });
});
