import { realpath } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import { openConnections } from '../accounts/connections.ts';
import { isTrusted, isWithin, listLocalGrants, realDataDir } from '../accounts/local-grants.ts';
import { findOrganization } from '../accounts/organizations.ts';
import type { OrganizationRow } from '../storage/tables/accounts.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../storage/schema.ts';
import { displayRepository } from '../lib/display-repository.ts';
import { localHost, localRepositoryPath } from './local.ts';
import { providerFor } from './select.ts';
import { CodeHostError, type CodeHost } from './types.ts';

/** How a job reaches its repository: the host with the organization's credentials, and what git uses. */
export interface RepositoryAccess {
  host: CodeHost;
  /** The real path of a local repository (checked now, so a later symlink swap cannot redirect git); the URL otherwise. */
  repository: string;
}

/**
 * Checks that the organization may work on `repository` and returns how. Called when a project is
 * saved and again when a job opens its workspace, so a grant revoked, a connection removed or a
 * symlink swapped in between stops the job. Throws a CodeHostError that says what to do.
 */
export async function resolveAccess(db: Kysely<Database>, config: Config, orgId: string, repository: string): Promise<RepositoryAccess> {
  const organization = await findOrganization(db, orgId);
  if (!organization) throw new CodeHostError(`Organization ${orgId} no longer exists.`);
  let path: string | null;
  try {
    path = localRepositoryPath(repository);
  } catch {
    throw new CodeHostError(`${repository} is not a file:// URL of this machine; use an absolute path or file:///path.`);
  }
  if (path) return { host: localHost(config), repository: await localAccess(db, config, organization, path) };
  const provider = providerFor(repository, config);
  const connections = await openConnections(db, config, organization.id, provider.connectionKinds);
  const refusals: string[] = [];
  for (const connection of connections) {
    try {
      return { host: await provider.withConnection(config, connection, repository), repository };
    } catch (error) {
      if (!(error instanceof CodeHostError)) throw error;
      refusals.push(error.message);
    }
  }
  if (organization.server_credentials === 1 || isTrusted(organization, config.trustFirstOrganization)) {
    const missing = provider.serverCredentialsMissing(config);
    if (!missing) return { host: provider.withServerCredentials(config), repository };
    if (connections.length === 0)
      throw new CodeHostError(
        `${displayRepository(repository)} is on ${provider.label}; ${missing} in the server's environment, or connect a token of organization ${organization.id} ` +
          `on the dashboard's Connections page or with "quire connections add --org ${organization.id} --kind ${provider.connectionKinds.join('|')}".`,
      );
  }
  const kinds = provider.connectionKinds.join('|');
  throw new CodeHostError(
    `Organization ${organization.id} has no ${provider.label} credentials that reach ${displayRepository(repository)}${refusals.length ? `: ${refusals.join(' ')}` : '.'} ` +
      `Connect a token that can, on the dashboard's Connections page or with "quire connections add --org ${organization.id} --kind ${kinds}".`,
  );
}

/** The real path of a local repository the organization may use; refused under the data directory and outside its grants. */
async function localAccess(db: Kysely<Database>, config: Config, organization: OrganizationRow, path: string): Promise<string> {
  const real = await realpath(path).catch(() => null);
  const trusted = isTrusted(organization, config.trustFirstOrganization);
  // An organization that is not trusted learns nothing about paths outside its grants, not even whether they exist.
  if (!real && trusted) throw new CodeHostError(`The local repository ${path} does not exist on this server; check the path.`);
  if (real && isWithin(await realDataDir(config.dataDir), real)) {
    throw new CodeHostError(
      `${path} is inside Quire's data directory (QUIRE_DATA_DIR), which holds its database, workspaces and mirrors; point the project at the documentation repository itself.`,
    );
  }
  if (real && trusted) return real;
  const grants = await listLocalGrants(db, organization.id);
  if (real && grants.some((grant) => isWithin(grant.path, real))) return real;
  throw new CodeHostError(
    `Organization ${organization.id} may not use the local repository ${path}: it does not exist, or no directory granted to the organization holds it (symlinks resolved). ` +
      `The operator grants one with "quire orgs grant-local ${organization.id} DIRECTORY".`,
  );
}

/** The save-time check: a sentence saying why the organization may not name `repository`, or null. */
export async function repositoryProblem(db: Kysely<Database>, config: Config, orgId: string, repository: string | null | undefined): Promise<string | null> {
  if (!repository) return null;
  try {
    await resolveAccess(db, config, orgId, repository);
    return null;
  } catch (error) {
    if (error instanceof CodeHostError) return error.message;
    throw error;
  }
}
