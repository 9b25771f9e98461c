import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId, randomBase62 } from '../lib/ids.ts';
import { addressRanges, inRanges, parseAddressRange } from '../lib/ip-ranges.ts';
import type { TtlCache } from '../lib/ttl-cache.ts';
import type { Storage } from '../storage/dialect.ts';
import type { Database } from '../storage/schema.ts';
import { noteKeyChange } from './changes.ts';
import type { ApiKeyRow, KeyKind } from '../storage/tables/accounts.ts';

/**
 * What tells the kinds of keys apart, as data. Prefixes are fixed so secret scanners can find leaked
 * keys; an assistant key's prefix is longer so a scanner (or a person) tells the two apart.
 */
export const keyFormats: Record<KeyKind, { prefix: string; secretLength: number; name: string }> = {
  admin: { prefix: 'quire_', secretLength: 40, name: 'Admin key' },
  assistant: { prefix: 'quire_dsc_', secretLength: 32, name: 'Assistant key' },
};
const shownSecretCharacters = 8;

export const scopes = ['read', 'write', 'ingest'] as const;
export type Scope = (typeof scopes)[number];
export const defaultScopes: Scope[] = ['read', 'write'];

/** Last-used times are written at most this often per key, so reads do not turn into writes. */
const lastUsedResolutionMs = 60_000;

export interface NewKeyOptions {
  name?: string;
  scopes?: Scope[];
  projectIds?: string[];
  /** IP addresses and CIDR ranges the key may be used from (default: any); see lib/ip-ranges.ts. */
  allowedIps?: string[];
  expiresAt?: Date;
  /** `admin` (the default) or `assistant`; an assistant key has no scopes and exactly one project. */
  kind?: KeyKind;
  /** Browser origins an assistant key may be used from (default: any); see parseOrigins. */
  allowedOrigins?: string[];
}

export interface CreatedKey {
  /** The secret: shown once, never stored. */
  key: string;
  row: ApiKeyRow;
}

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function parseScopes(value: string): Scope[] {
  const list = value
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = list.filter((scope) => !scopes.includes(scope as Scope));
  if (unknown.length > 0 || list.length === 0) {
    throw new Error(`Scopes are a comma-separated list of ${scopes.join(', ')}; got "${value}".`);
  }
  return [...new Set(list)] as Scope[];
}

/** Creates a key; throws AddressRangeError, before writing anything, when an allowed IP entry is not an address or range. */
export async function createKey(db: Kysely<Database>, orgId: string, options: NewKeyOptions = {}): Promise<CreatedKey> {
  const allowedIps = options.allowedIps?.map(parseAddressRange);
  const kind = options.kind ?? 'admin';
  const format = keyFormats[kind];
  if (kind === 'assistant' && options.projectIds?.length !== 1) throw new Error('An assistant key is bound to exactly one project.');
  const key = format.prefix + randomBase62(format.secretLength);
  const row: ApiKeyRow = {
    id: newId('key'),
    org_id: orgId,
    kind,
    name: options.name ?? format.name,
    prefix: key.slice(0, format.prefix.length + shownSecretCharacters),
    hash: hashKey(key),
    scopes: kind === 'assistant' ? '' : (options.scopes ?? defaultScopes).join(','),
    project_ids: options.projectIds?.length ? options.projectIds.join(',') : null,
    allowed_origins: options.allowedOrigins?.length ? options.allowedOrigins.join(',') : null,
    allowed_ips: allowedIps?.length ? [...new Set(allowedIps)].join(',') : null,
    expires_at: options.expiresAt ? options.expiresAt.getTime() : null,
    revoked_at: null,
    last_used_at: null,
    created_at: Date.now(),
  };
  await db.insertInto('api_keys').values(row).execute();
  return { key, row };
}

export function listKeys(db: Kysely<Database>, orgId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export function findKey(db: Kysely<Database>, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Revokes a key of the organization; returns false when it has no such key. */
export async function revokeKey(db: Kysely<Database>, orgId: string, id: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: Date.now() })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) {
    noteKeyChange();
    return true;
  }
  const existing = await db.selectFrom('api_keys').select('id').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
  return existing !== undefined;
}

/** Why a key was refused: `unauthorized` when it cannot be used at all, `forbidden` when not from this address. */
export type KeyCheck = { ok: true; key: ApiKeyRow } | { ok: false; code: 'unauthorized' | 'forbidden'; reason: string };

export interface VerifyOptions {
  /** The client address the request came from (see server/client-address.ts); undefined when unknown. */
  from: string | undefined;
  /** Reuses key rows across requests for a short time (see QUIRE_ACCOUNT_CACHE_MS). */
  cache?: TtlCache<ApiKeyRow>;
  now?: number;
  /** The kind of key the caller takes (default `admin`): a key of another kind is refused as unknown. */
  kind?: KeyKind;
  /** The scope the operation needs: a key without it is refused (`forbidden`), leaving no trace of use. */
  scope?: Scope;
}

/** Whether `token` has the form of a key of `kind`: its prefix, then exactly its number of base62 characters. */
export function hasKeyForm(token: string, kind: KeyKind): boolean {
  const { prefix, secretLength } = keyFormats[kind];
  return token.startsWith(prefix) && token.length === prefix.length + secretLength && /^[0-9A-Za-z]+$/.test(token.slice(prefix.length));
}

/**
 * Finds the key a bearer token names and says whether it may be used now. The one place keys are
 * verified: a key of another kind than the caller takes is refused as unknown, so an assistant key,
 * which may sit in a web page, never reaches an admin operation.
 */
export async function verifyKey(storage: Pick<Storage, 'db' | 'deferDurability'>, token: string, options: VerifyOptions): Promise<KeyCheck> {
  const { db } = storage;
  const now = options.now ?? Date.now();
  const kind = options.kind ?? 'admin';
  if (!hasKeyForm(token, kind)) {
    const { prefix } = keyFormats[kind];
    return {
      ok: false,
      code: 'unauthorized',
      reason: `The ${kind === 'admin' ? 'API' : 'assistant'} key is malformed: these Quire keys start with "${prefix}". Generate one on the dashboard's API keys page or with "quire keys create".`,
    };
  }
  const hash = hashKey(token);
  const load = () => db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
  const key = options.cache ? await options.cache.get(hash, load, now) : await load();
  if (!key || key.kind !== kind)
    return { ok: false, code: 'unauthorized', reason: 'The API key is not known. Check that you copied the whole key, or generate a new one.' };
  if (key.revoked_at !== null) return { ok: false, code: 'unauthorized', reason: 'The API key was revoked. Generate a new one.' };
  if (key.expires_at !== null && key.expires_at <= now) return { ok: false, code: 'unauthorized', reason: 'The API key has expired. Generate a new one.' };
  // Checked before the last-used time moves on, so refused requests leave no trace of use on the key.
  if (key.allowed_ips !== null && (options.from === undefined || !inRanges(addressRanges(key.allowed_ips.split(',')), options.from))) {
    return { ok: false, code: 'forbidden', reason: refusedAddress(options.from) };
  }
  if (options.scope !== undefined && !keyScopes(key).includes(options.scope)) {
    return {
      ok: false,
      code: 'forbidden',
      reason: `This API key lacks the "${options.scope}" scope this operation needs. Create a key with --scopes including ${options.scope}.`,
    };
  }
  if (key.last_used_at === null || now - key.last_used_at > lastUsedResolutionMs) {
    key.last_used_at = now;
    // A hint for the dashboard, not an acknowledged write: committed without waiting for the disk, whose flush made
    // the first request of each minute about 25 ms slower on SQLite.
    await storage.deferDurability(() => db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', key.id).execute());
  }
  return { ok: true, key };
}

function refusedAddress(address: string | undefined): string {
  const where = address === undefined ? 'an address Quire cannot determine' : address;
  return (
    `This API key may not be used from ${where}: it is limited to other IP addresses. Send the request from an allowed address, ` +
    `or create a key whose allowlist includes ${address ?? 'your address'} (dashboard, or "quire keys create --allow-ips"). ` +
    'Behind a reverse proxy, list the proxy in QUIRE_TRUSTED_PROXIES so Quire sees the client address.'
  );
}

export function keyScopes(key: ApiKeyRow): Scope[] {
  return key.scopes.split(',').filter(Boolean) as Scope[];
}

/**
 * Browser origins from what an operator typed (comma- or space-separated), each as the browser sends
 * it in `Origin` (`https://docs.example.com`, a port when not the default); throws a sentence saying
 * what is wrong.
 */
export function parseOrigins(text: string): string[] {
  const origins = new Set<string>();
  for (const word of text.split(/[\s,]+/).filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(word);
    } catch {
      url = undefined;
    }
    if (!url || !['https:', 'http:'].includes(url.protocol) || `${url.origin}/` !== url.href.replace(/\/?$/, '/')) {
      throw new Error(`"${word}" is not a browser origin: give the scheme and host only, such as https://docs.example.com.`);
    }
    origins.add(url.origin);
  }
  return [...origins];
}

export function keyCanSeeProject(key: ApiKeyRow, project: { id: string; org_id: string }): boolean {
  if (project.org_id !== key.org_id) return false;
  return key.project_ids === null || key.project_ids.split(',').includes(project.id);
}

/** The public view of a key (never the secret or its hash). */
export function keyView(row: ApiKeyRow) {
  const iso = (value: number | null) => (value === null ? null : new Date(value).toISOString());
  return {
    id: row.id,
    orgId: row.org_id,
    kind: row.kind,
    name: row.name,
    prefix: row.prefix,
    scopes: keyScopes(row),
    projectIds: row.project_ids ? row.project_ids.split(',') : null,
    allowedOrigins: row.allowed_origins ? row.allowed_origins.split(',') : null,
    allowedIps: row.allowed_ips ? row.allowed_ips.split(',') : null,
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: iso(row.last_used_at),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
  };
}
