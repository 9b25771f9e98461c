import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../storage/schema.ts';
import { classificationVersion } from '../ingest/agents/load.ts';
import { analyticsProjects, rebuildProject, type RebuildState } from './rebuild.ts';

const versionKey = 'classification_version';
/** How often a long project rebuild reports its progress. */
const progressEveryMs = 10_000;

/** The classification version stored day sets were built with; null before the first start that recorded one. */
export async function storedClassificationVersion(db: Kysely<Database>): Promise<string | null> {
  const row = await db.selectFrom('analytics_settings').select('value').where('key', '=', versionKey).executeTakeFirst();
  return row?.value ?? null;
}

/** Records that every project's day sets follow `version` (after a full rebuild, or when there is nothing to rebuild). */
export async function storeClassificationVersion(db: Kysely<Database>, version = classificationVersion): Promise<void> {
  await db
    .insertInto('analytics_settings')
    .values({ key: versionKey, value: version })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: version }))
    .execute();
}

class Stopped extends Error {}

/**
 * When the agent lists changed since the day sets were built, rebuilds every project from its raw
 * events, one project and one day at a time, so queries keep answering (old classification for the
 * days not yet rebuilt) and ingestion goes on. The new version is stored only once every project is
 * done: a process stopped halfway leaves the old one, and the next start begins again. Several
 * processes starting together may each rebuild; rebuilds are idempotent, and each checks before every
 * project whether another already finished.
 */
export async function reclassifyIfChanged(state: RebuildState, logger: Logger, stopped: () => boolean): Promise<'current' | 'done' | 'stopped'> {
  const { db } = state.storage;
  const stored = await storedClassificationVersion(db);
  if (stored === classificationVersion) return 'current';
  const projects = await analyticsProjects(db);
  if (projects.length > 0)
    logger.info(
      { from: stored, to: classificationVersion, projects: projects.length },
      'AI agent lists changed: reclassifying analytics history from raw events in the background',
    );
  let reported = Date.now();
  try {
    for (const [index, projectId] of projects.entries()) {
      if (stopped()) throw new Stopped();
      if ((await storedClassificationVersion(db)) === classificationVersion) return 'done';
      const result = await rebuildProject(state, projectId, (day, days) => {
        // Thrown from the progress callback so a stop does not wait for the rest of a long project.
        if (stopped()) throw new Stopped();
        if (Date.now() - reported < progressEveryMs) return;
        reported = Date.now();
        logger.info({ projectId, day, days }, 'reclassifying analytics history');
      });
      logger.info({ projectId, project: index + 1, projects: projects.length, ...result }, 'reclassified analytics history of a project');
    }
  } catch (error) {
    if (error instanceof Stopped) return 'stopped';
    throw error;
  }
  await storeClassificationVersion(db);
  if (projects.length > 0) logger.info({ version: classificationVersion }, 'analytics history reclassified');
  return 'done';
}
