import type { Kysely } from 'kysely';
import { checkSecretKeys, resealAll, type StoredSealed } from '../../accounts/secrets.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../storage/schema.ts';

/**
 * Drain secrets are always sealed (a drain cannot be created without QUIRE_SECRET_KEY), so the key
 * checks and rotation that code-host tokens and webhook secrets get cover every drain too: a drain
 * whose secret no configured key opens answers every batch 503.
 */
async function sealedSecrets(db: Kysely<Database>): Promise<StoredSealed[]> {
  const rows = await db.selectFrom('analytics_drains').select(['id', 'secret']).execute();
  return rows.map((row) => ({ table: 'analytics_drains', column: 'secret', id: row.id, value: row.secret }));
}

/** The start-up check for drain secrets: each must open with the configured keys (see accounts/secrets.ts). */
export async function checkDrainSecrets(db: Kysely<Database>, config: Config): Promise<void> {
  checkSecretKeys(
    config,
    (await sealedSecrets(db)).map((row) => row.value),
    'encrypted log drain secrets',
  );
}

/** Re-seals every drain secret under QUIRE_SECRET_KEY (`quire connections rotate-key`); returns how many changed. */
export async function reencryptDrainSecrets(db: Kysely<Database>, config: Config): Promise<number> {
  // A batch may re-seal one meanwhile (receive.ts): resealAll leaves a value that changed alone.
  return resealAll(db, config, await sealedSecrets(db));
}
