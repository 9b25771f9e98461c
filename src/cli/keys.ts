import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import { createKey, findKey, keyView, listKeys, parseOrigins, parseScopes, revokeKey } from '../accounts/keys.ts';
import { resolveOrganization } from '../accounts/organizations.ts';
import { findProject } from '../accounts/projects.ts';
import { AddressRangeError, parseAddressRanges } from '../lib/ip-ranges.ts';
import { keyKinds, type KeyKind } from '../storage/tables/accounts.ts';
import { organizationListing } from './accounts.ts';
import { withStorage } from './database.ts';
import { CliError, print } from './output.ts';

interface KeyFlags {
  org?: string;
  kind: string;
  name?: string;
  project?: string;
  scopes?: string;
  origins?: string;
  expires?: string;
  allowIps?: string;
  json?: boolean;
}

/** `--kind`; `--origins` only with the assistant kind, whose keys browsers send, and `--scopes` only with the admin kind. */
function keyKind(flags: KeyFlags): KeyKind {
  if (!keyKinds.includes(flags.kind as KeyKind)) throw new CliError(`--kind is ${keyKinds.join(' or ')}; got "${flags.kind}".`);
  if (flags.origins !== undefined && flags.kind !== 'assistant') throw new CliError('--origins limits assistant keys; add --kind assistant.');
  if (flags.scopes !== undefined && flags.kind === 'assistant')
    throw new CliError("--scopes is for admin keys: an assistant key only reads its project's docs and asks its assistant; leave --scopes out.");
  return flags.kind as KeyKind;
}

/** `--origins https://a,https://b`, or what is wrong with it. */
function origins(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  try {
    return parseOrigins(value);
  } catch (error) {
    throw new CliError(`--origins: ${(error as Error).message}`);
  }
}

/** `quire keys create|list|revoke`: admin keys and assistant keys. */
export function registerKeys(program: Command): void {
  const keys = topCommand(program, 'keys');
  keys
    .command('create')
    .option('--org <id>', 'organization (default: the first one)')
    .option('--kind <kind>', "admin (the admin API) or assistant (quire_dsc_…: reads one project's docs and asks its assistant, safe in a web page)", 'admin')
    .option('--name <name>', 'a name to tell keys apart')
    .option('--project <ids>', 'limit the key to these comma-separated project ids (an assistant key: its one project)')
    .option('--scopes <scopes>', 'comma-separated: read, write, ingest (admin keys; default read,write)')
    .option('--origins <origins>', 'browser origins an assistant key may be used from, comma-separated, e.g. https://docs.acme.com (default: any)')
    .option('--expires <iso>', 'expiry time, ISO 8601 (default: never)')
    .option(
      '--allow-ips <ranges>',
      'limit the key to these comma-separated IP addresses and CIDR ranges, e.g. 203.0.113.0/24,2001:db8::/32 (default: any address)',
    )
    .option('--json', 'print JSON')
    .action((flags: KeyFlags) =>
      withStorage(async ({ db }) => {
        const organization = await resolveOrganization(db, flags.org);
        const kind = keyKind(flags);
        let scopes;
        let allowedIps;
        const allowedOrigins = origins(flags.origins);
        try {
          scopes = parseScopes(flags.scopes ?? 'read,write');
          allowedIps = flags.allowIps === undefined ? undefined : parseAddressRanges(flags.allowIps);
        } catch (error) {
          throw new CliError(`${error instanceof AddressRangeError ? '--allow-ips: ' : ''}${(error as Error).message}`);
        }
        const expiresAt = flags.expires === undefined ? undefined : new Date(flags.expires);
        if (expiresAt && Number.isNaN(expiresAt.getTime()))
          throw new CliError(`--expires must be an ISO 8601 time such as 2027-01-01T00:00:00Z; got "${flags.expires}".`);
        if (expiresAt && expiresAt.getTime() <= Date.now())
          throw new CliError(
            `--expires ${flags.expires} is in the past, so the key would never work; give a later time, or leave it out for a key that does not expire.`,
          );
        const projectIds = flags.project
          ?.split(',')
          .map((id) => id.trim())
          .filter(Boolean);
        if (kind === 'assistant' && projectIds?.length !== 1) throw new CliError("An assistant key reads one project's docs: give it with --project prj_….");
        for (const projectId of projectIds ?? []) {
          const project = await findProject(db, projectId);
          if (!project || project.org_id !== organization.id) throw new CliError(`Organization ${organization.id} has no project ${projectId}.`);
        }
        const { key, row } = await createKey(db, organization.id, { kind, name: flags.name, scopes, projectIds, allowedIps, allowedOrigins, expiresAt });
        const view = { ...keyView(row), key };
        const what = kind === 'assistant' ? `assistant key ${row.id} for ${row.project_ids}` : `key ${row.id} (${row.scopes})`;
        print(flags, view, () => `Created ${what}. Store it now, it is shown only once:\n${key}`);
      }),
    );
  organizationListing(keys, (db, orgId) => listKeys(db, orgId).then((rows) => rows.map(keyView)), [
    'id',
    'kind',
    'name',
    'prefix',
    'scopes',
    'projectIds',
    'allowedOrigins',
    'allowedIps',
    'lastUsedAt',
    'expiresAt',
    'revokedAt',
  ]);
  keys
    .command('revoke')
    .argument('<id>', 'key id (key_…)')
    .option('--org <id>', 'refuse unless the key belongs to this organization')
    .option('--json', 'print JSON')
    .action((id: string, flags: { org?: string; json?: boolean }) =>
      withStorage(async ({ db }) => {
        // Key ids are unique across organizations, so the id alone names the key.
        const key = await findKey(db, id);
        if (!key) throw new CliError(`No key has the id ${id}; "quire keys list --org <id>" shows an organization's keys.`);
        if (flags.org !== undefined) {
          const organization = await resolveOrganization(db, flags.org);
          if (organization.id !== key.org_id)
            throw new CliError(`Key ${id} belongs to organization ${key.org_id}, not ${organization.id}; nothing was revoked.`);
        }
        await revokeKey(db, key.org_id, id);
        print(flags, { id, revoked: true }, () => `Revoked key ${id}; requests with it now get 401.`);
      }),
    );
}
