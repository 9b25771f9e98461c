import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Config } from '../config/config.ts';
import type { Database } from '../storage/schema.ts';
import { ConfigError } from '../config/parsers.ts';

/**
 * Encrypts organizations' code-host tokens at rest with AES-256-GCM under QUIRE_SECRET_KEY. A sealed
 * value is `v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url parts); the key id (a hash prefix of the
 * key, never the key) says which key sealed it, so QUIRE_SECRET_KEY_PREVIOUS can open values sealed
 * before a rotation while `quire connections rotate-key` re-seals them.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** Whether `sealed` was sealed with the current key (false: rotation still has work to do). */
  isCurrent(sealed: string): boolean;
}

const fix =
  'Set QUIRE_SECRET_KEY to 32 random bytes in base64 ("openssl rand -base64 32"; without it, Quire on SQLite uses the key it made at its first start in QUIRE_DATA_DIR/secret-key) and keep it with your backups: tokens sealed with a lost key cannot be read again.';

export function keyId(key: Buffer): string {
  return hash('sha256', key, 'base64url').slice(0, 8);
}

export function secretBox(config: Pick<Config, 'secretKey' | 'secretKeyPrevious'>): SecretBox {
  const keys = new Map<string, Buffer>();
  for (const key of [config.secretKeyPrevious, config.secretKey]) if (key) keys.set(keyId(key), key);
  const current = config.secretKey;
  return {
    seal(plaintext) {
      if (!current) throw new ConfigError(`Quire cannot store a code-host token without an encryption key. ${fix}`);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', keyId(current), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
    },
    open(sealed) {
      const [version, id, iv, tag, ciphertext] = sealed.split(':');
      const key = keys.get(id);
      if (version !== 'v1' || !key) throw new ConfigError(unreadable(id, current));
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
    isCurrent(sealed) {
      return current !== undefined && sealed.split(':')[1] === keyId(current);
    },
  };
}

/** Why sealed values with key id `id` cannot be opened, and what to set. */
export function unreadable(id: string | undefined, current?: Buffer): string {
  const inUse = current ? ` (the key in use has id ${keyId(current)})` : '';
  return `Code-host tokens or webhook and log drain secrets in the database were encrypted with a key (id ${id ?? 'unknown'}) that is neither QUIRE_SECRET_KEY nor QUIRE_SECRET_KEY_PREVIOUS${inUse}. ${fix} If you rotated the key, set QUIRE_SECRET_KEY_PREVIOUS to the old one and run "quire connections rotate-key".`;
}

/**
 * The start-up check: every stored secret (`v1:<key id>:…`) must open with the configured keys, so a
 * missing or wrong QUIRE_SECRET_KEY stops the service at once instead of failing jobs, deliveries or
 * drain batches one by one later. `holding` names what the sealed values are, for the message.
 */
export function checkSecretKeys(config: Pick<Config, 'secretKey' | 'secretKeyPrevious'>, sealed: string[], holding = 'encrypted code-host tokens'): void {
  if (sealed.length === 0) return;
  if (!config.secretKey) throw new ConfigError(`QUIRE_SECRET_KEY is not set, but the database holds ${holding}. ${fix} Use the key they were stored with.`);
  const known = new Set([config.secretKey, config.secretKeyPrevious].filter((key) => key !== undefined).map(keyId));
  const unknown = sealed.map((value) => value.split(':')[1]).find((id) => !known.has(id));
  if (unknown !== undefined) throw new ConfigError(unreadable(unknown, config.secretKey));
}

/** A sealed value as stored: its table, column and row. Every table that holds one has a text `id` key. */
export interface StoredSealed {
  table: 'code_host_connections' | 'analytics_drains' | 'webhook_endpoints';
  column: 'secret' | 'previous_secret';
  id: string;
  value: string;
}

/**
 * Re-seals under QUIRE_SECRET_KEY each of `entries` sealed with another key (`quire connections rotate-key`),
 * writing one only where its row still holds the value read (a batch or a request may have re-sealed it
 * meanwhile). Returns how many were re-sealed.
 */
export async function resealAll(db: Kysely<Database>, config: Pick<Config, 'secretKey' | 'secretKeyPrevious'>, entries: StoredSealed[]): Promise<number> {
  const box = secretBox(config);
  let changed = 0;
  for (const { table, column, id, value } of entries) {
    if (box.isCurrent(value)) continue;
    const sealed = box.seal(box.open(value));
    const result = await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${sealed} where id = ${id} and ${sql.ref(column)} = ${value}`.execute(db);
    if ((result.numAffectedRows ?? 0n) > 0n) changed += 1;
  }
  return changed;
}
