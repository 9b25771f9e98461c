import type { Storage } from '../../../storage/dialect.ts';
import { abandonBuild } from '../abandon.ts';
import { recordFailure } from '../fail.ts';

export interface ClaimedBuild {
  projectId: string;
  /** The request this build serves. */
  seq: number;
  attempt: number;
}

type Outcome = { kind: 'claimed'; build: ClaimedBuild } | { kind: 'exhausted'; projectId: string; attempts: number } | null;

/**
 * Takes one requested build for `builderId` with a lease of `leaseMs`: a project whose build is
 * requested and not running, or whose builder's lease expired (it died). A request whose attempts
 * are used up is not run again: the project's build fails with an error saying so, and the next one
 * is taken instead.
 */
export async function claimBuild(
  storage: Storage,
  builderId: string,
  options: { leaseMs: number; maxAttempts: number },
  now = Date.now(),
): Promise<ClaimedBuild | null> {
  const { db, profile } = storage;
  for (;;) {
    const outcome = await db.transaction().execute(async (trx): Promise<Outcome> => {
      const candidate = await trx
        .selectFrom('docs_builds')
        .select(['project_id', 'requested_seq', 'claimed_seq', 'attempts', 'locked_until'])
        .whereRef('requested_seq', '>', 'finished_seq')
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('requested_at')
        .limit(1)
        .$if(profile.skipLocked, (query) => query.forUpdate().skipLocked())
        .executeTakeFirst();
      if (!candidate) return null;
      // A new request after the last claim starts counting again; an expired lease of the same one counts on.
      const resumed = candidate.locked_until !== null && candidate.claimed_seq === candidate.requested_seq;
      const attempts = resumed ? candidate.attempts : 0;
      if (attempts >= options.maxAttempts) {
        await trx
          .updateTable('docs_builds')
          .set({ finished_seq: candidate.requested_seq, locked_by: null, locked_until: null, attempts: 0, finished_at: now })
          .where('project_id', '=', candidate.project_id)
          .execute();
        return { kind: 'exhausted', projectId: candidate.project_id, attempts };
      }
      await trx
        .updateTable('docs_builds')
        .set({ claimed_seq: candidate.requested_seq, attempts: attempts + 1, locked_by: builderId, locked_until: now + options.leaseMs })
        .where('project_id', '=', candidate.project_id)
        .execute();
      return { kind: 'claimed', build: { projectId: candidate.project_id, seq: candidate.requested_seq, attempt: attempts + 1 } };
    });
    if (outcome === null) return null;
    if (outcome.kind === 'claimed') return outcome.build;
    await giveUp(storage, outcome.projectId, outcome.attempts);
  }
}

async function giveUp(storage: Storage, projectId: string, attempts: number): Promise<void> {
  const error = `The docs build was interrupted ${attempts} times (its worker stopped before finishing) and will not be retried; refresh the docs to try again.`;
  const state = await storage.db.selectFrom('docs_state').select('building_generation').where('project_id', '=', projectId).executeTakeFirst();
  if (state?.building_generation != null) await abandonBuild(storage, { projectId, generation: state.building_generation }, error);
  else await recordFailure(storage, projectId, error);
}
