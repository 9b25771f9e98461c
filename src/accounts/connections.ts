import type { Kysely } from 'kysely';
import { newId } from '../lib/ids.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../storage/schema.ts';
import { checkSecretKeys, resealAll, secretBox, type StoredSealed } from './secrets.ts';
import type { ConnectionKind, ConnectionRow } from '../storage/tables/accounts.ts';

/** A connection as code hosts use it: the token decrypted, in memory only. */
export interface OpenedConnection {
  id: string;
  kind: ConnectionKind;
  account: string;
  installationId: number | null;
  token: string | null;
}

export interface NewConnection {
  kind: ConnectionKind;
  account: string;
  installationId?: number;
  token?: string;
}

export async function addConnection(db: Kysely<Database>, config: Config, orgId: string, connection: NewConnection): Promise<ConnectionRow> {
  const row: ConnectionRow = {
    id: newId('con'),
    org_id: orgId,
    kind: connection.kind,
    account: connection.account,
    installation_id: connection.installationId ?? null,
    secret: connection.token === undefined ? null : secretBox(config).seal(connection.token),
    created_at: Date.now(),
  };
  await db.insertInto('code_host_connections').values(row).execute();
  return row;
}

export function listConnections(db: Kysely<Database>, orgId: string): Promise<ConnectionRow[]> {
  return db.selectFrom('code_host_connections').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

/** The organization's connections of `kinds`, oldest first, with their tokens decrypted. */
export async function openConnections(db: Kysely<Database>, config: Config, orgId: string, kinds: readonly ConnectionKind[]): Promise<OpenedConnection[]> {
  if (kinds.length === 0) return [];
  const rows = await db
    .selectFrom('code_host_connections')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('kind', 'in', kinds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const box = secretBox(config);
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    account: row.account,
    installationId: row.installation_id,
    token: row.secret === null ? null : box.open(row.secret),
  }));
}

/** Removes a connection of the organization; false when it has no such connection. */
export async function removeConnection(db: Kysely<Database>, orgId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('code_host_connections').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The sealed tokens of every connection that has one. */
async function sealedTokens(db: Kysely<Database>): Promise<StoredSealed[]> {
  const rows = await db.selectFrom('code_host_connections').select(['id', 'secret']).where('secret', 'is not', null).execute();
  return rows.map((row) => ({ table: 'code_host_connections', column: 'secret', id: row.id, value: row.secret! }));
}

/** Re-encrypts every token under QUIRE_SECRET_KEY; returns how many were re-encrypted. */
export async function reencryptConnections(db: Kysely<Database>, config: Config): Promise<number> {
  return resealAll(db, config, await sealedTokens(db));
}

/** Fails start-up with a ConfigError when stored tokens cannot be decrypted with the configured keys. */
export async function checkStoredSecrets(db: Kysely<Database>, config: Config): Promise<void> {
  checkSecretKeys(
    config,
    (await sealedTokens(db)).map((row) => row.value),
  );
}

/** What listings show of a connection: never the token. */
export function connectionView(row: ConnectionRow) {
  return {
    id: row.id,
    orgId: row.org_id,
    kind: row.kind,
    account: row.account,
    installationId: row.installation_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
