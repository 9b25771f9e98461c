import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createKey, type Scope } from '../../src/accounts/keys.ts';
import { grantLocal, setServerCredentials } from '../../src/accounts/local-grants.ts';
import { createOrganization } from '../../src/accounts/organizations.ts';
import { createProject, type ProjectSettings } from '../../src/accounts/projects.ts';
import type { ProjectRow } from '../../src/storage/tables/accounts.ts';
import type { AgentRunner, AgentSetup } from '../../src/jobs/runner.ts';
import { buildApp, type AppOptions } from '../../src/server/app.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import type { AppContext } from '../../src/http/context.ts';
import { createContext } from '../../src/server/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';

/** An agent whose runner the test supplies; every project with a repository and model can take jobs. */
export function scriptedAgent(runner: AgentRunner = { run: async () => ({ prLink: null }) }): AgentSetup {
  return {
    runner,
    modelFor: (project) => project.model ?? 'openai-compatible:test-model',
    checkProject: (project) => (project.repository ? null : `Project ${project.id} has no repository.`),
  };
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig({}, { logLevel: 'silent', port: 0, ...overrides });
}

/** A context made by the same factory the service uses, with a silent log and a scripted agent unless given one. */
export function testContext(storage: Storage, options: { config?: Partial<Config>; agent?: AgentSetup } = {}): AppContext {
  return createContext(testConfig(options.config), storage, { logger: pino({ level: 'silent' }), agent: options.agent ?? scriptedAgent() });
}

/** The app every feature serves, built as the service builds it. */
export async function testApp(context: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp(context, options);
  await app.ready();
  return app;
}

export interface Tenant {
  orgId: string;
  project: ProjectRow;
  key: string;
  auth: { authorization: string };
}

/** An organization with one project and an admin key (scopes read, write, ingest unless given). */
export async function createTenant(storage: Storage, options: { project?: Partial<ProjectSettings>; scopes?: Scope[] } = {}): Promise<Tenant> {
  const organization = await createOrganization(storage.db, 'Acme');
  const project = await createProject(storage.db, organization.id, {
    name: 'Docs',
    repository: 'https://github.com/acme/docs',
    ref: 'main',
    ...options.project,
  });
  const { key } = await createKey(storage.db, organization.id, { scopes: options.scopes ?? ['read', 'write', 'ingest'] });
  return { orgId: organization.id, project, key, auth: { authorization: `Bearer ${key}` } };
}

/** What the operator lets an organization reach: local directories (`quire orgs grant-local`) and the server-wide credentials. */
export interface Grants {
  localDirectories?: string[];
  serverCredentials?: boolean;
}

/** Grants the organization what a test's repositories need, as `quire orgs grant-local` and `grant-server-credentials` do. */
export async function grantAccess(storage: Storage, config: Config, orgId: string, grants: Grants): Promise<void> {
  for (const directory of grants.localDirectories ?? []) await grantLocal(storage.db, config.dataDir, orgId, directory);
  if (grants.serverCredentials) await setServerCredentials(storage.db, orgId, true);
}
