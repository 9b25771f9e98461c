import type { Kysely } from 'kysely';
import { createKey, type NewKeyOptions } from '../accounts/keys.ts';
import type { Database } from '../storage/schema.ts';
import type { Viewer } from './layout.ts';

/**
 * Creates a key from a form that shows the new secret once, unless this session sent the same form
 * (`formId`, a random id the page put in it) before: then nothing is created and the answer is null, so
 * a reload or a double click does not make a second key. An empty `formId` creates the key unguarded.
 */
export async function createKeyOnce(db: Kysely<Database>, viewer: Viewer, formId: string, options: NewKeyOptions): Promise<string | null> {
  return db.transaction().execute(async (trx) => {
    if (formId !== '') {
      const use = await trx
        .insertInto('dashboard_form_uses')
        .values({ session_id: viewer.sessionId, form_id: formId, created_at: Date.now() })
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      if (Number(use.numInsertedOrUpdatedRows ?? 0) === 0) return null;
    }
    return (await createKey(trx, viewer.orgId, options)).key;
  });
}
