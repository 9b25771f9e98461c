import type { Kysely } from 'kysely';
import { checkSecretKeys, resealAll } from '../../accounts/secrets.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../storage/schema.ts';

/**
 * Drain secrets are always sealed (a drain cannot be created without QUIRE_SECRET_KEY), so the key
 * checks and rotation that code-host tokens and webhook secrets get cover every drain too: a drain
 * whose secret no configured key opens answers every batch 503.
 */
async function sealedSecrets(db: Kysely<Database>): Promise<{ id: string; secret: string }[]> {
  return db.selectFrom('analytics_drains').select(['id', 'secret']).execute();
}

/** The start-up check for drain secrets: each must open with the configured keys (see accounts/secrets.ts). */
export async function checkDrainSecrets(db: Kysely<Database>, config: Config): Promise<void> {
  checkSecretKeys(
    config,
    (await sealedSecrets(db)).map((row) => row.secret),
    'encrypted log drain secrets',
  );
}

/** Re-seals every drain secret under QUIRE_SECRET_KEY (`quire connections rotate-key`); returns how many changed. */
export async function reencryptDrainSecrets(db: Kysely<Database>, config: Config): Promise<number> {
  return resealAll(
    config,
    await sealedSecrets(db),
    (row) => row.secret,
    // A batch may have re-sealed it meanwhile (receive.ts): the condition leaves that value alone.
    async (row, sealed) => {
      const result = await db
        .updateTable('analytics_drains')
        .set({ secret: sealed })
        .where('id', '=', row.id)
        .where('secret', '=', row.secret)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  );
}
