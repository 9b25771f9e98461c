import type { Storage } from '../../storage/dialect.ts';

/**
 * Records a build that failed before it began writing (the repository could not be read, the ref is
 * missing): the project's status becomes `failed` with `error`, and readers keep the last finished
 * generation. A build another builder has in progress is left alone.
 */
export async function recordFailure(storage: Storage, projectId: string, error: string): Promise<void> {
  await storage.db
    .insertInto('docs_state')
    .values({ project_id: projectId, generation: 0, status: 'failed', error, pages: 0, sections: 0, started_generation: 0 })
    .onConflict((conflict) => conflict.column('project_id').doUpdateSet({ status: 'failed', error }).where('docs_state.building_generation', 'is', null))
    .execute();
}
