import type { Kysely } from 'kysely';
import { checkSecretKeys, resealAll, type StoredSealed } from '../../accounts/secrets.ts';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../storage/schema.ts';

/** Webhook secrets sealed with QUIRE_SECRET_KEY (secrets kept before a key was set stay as they are: `whsec_…`). */
async function sealedSecrets(db: Kysely<Database>): Promise<StoredSealed[]> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'secret', 'previous_secret']).execute();
  return rows.flatMap((row) =>
    (['secret', 'previous_secret'] as const).flatMap((column) => {
      const value = row[column];
      return value !== null && value.startsWith('v1:') ? [{ table: 'webhook_endpoints' as const, column, id: row.id, value }] : [];
    }),
  );
}

/** The start-up check for webhook secrets: each must open with the configured keys (see accounts/secrets.ts). */
export async function checkWebhookSecrets(db: Kysely<Database>, config: Config): Promise<void> {
  checkSecretKeys(
    config,
    (await sealedSecrets(db)).map((entry) => entry.value),
    'encrypted webhook secrets',
  );
}

/** Re-seals every webhook secret under QUIRE_SECRET_KEY (`quire connections rotate-key`); returns how many changed. */
export async function reencryptWebhookSecrets(db: Kysely<Database>, config: Config): Promise<number> {
  return resealAll(db, config, await sealedSecrets(db));
}
