/**
 * Recomputes what ingestion decided of each stored view beside its sets (ingest/dimensions/): the
 * class it counts as, the browser, OS and device of user agents that lack them, and visits (entry
 * flags and sources) exactly from the raw events in time order. The country cannot be recomputed:
 * the client address is never stored, so views stored before countries were kept have none.
 */
import { sql, type Kysely } from 'kysely';
import type { DialectProfile } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { countedClass } from '../ingest/classify.ts';
import type { Dictionary } from '../ingest/dense-ids.ts';
import { forgetVisits, storeAgentTraits } from '../ingest/dimensions/dimensions.ts';
import { visitGapMs } from '../ingest/dimensions/visits.ts';
import type { MarkdownRequest } from '../model/markdown-request.ts';
import type { Verification } from '../model/verification.ts';
import { userAgents } from '../query/read-sources.ts';

/** The class of each distinct (user agent, Markdown, status, verification) of the project's views, written back to its rows. */
async function recountClasses(trx: Kysely<Database>, dictionary: Dictionary, projectKey: number): Promise<void> {
  const kinds = await trx
    .selectFrom('analytics_events')
    .select(['agent_id', 'markdown', 'status', 'verification'])
    .distinct()
    .where('project_key', '=', projectKey)
    .execute();
  const agents = await userAgents(trx, dictionary, new Set(kinds.map((kind) => Number(kind.agent_id))));
  await storeAgentTraits(trx, dictionary, agents, true);
  const byClass = new Map<number | null, typeof kinds>();
  for (const kind of kinds) {
    const status = kind.status === null ? null : Number(kind.status);
    const code = countedClass(agents.get(Number(kind.agent_id))!, Number(kind.markdown) as MarkdownRequest, status, Number(kind.verification) as Verification);
    if (!byClass.has(code)) byClass.set(code, []);
    byClass.get(code)!.push(kind);
  }
  for (const [code, list] of byClass) {
    for (let start = 0; start < list.length; start += 500) {
      const tuples = list.slice(start, start + 500).map(
        // Typed, so PostgreSQL compares numbers with numbers (parameters arrive untyped).
        (kind) =>
          sql`(cast(${Number(kind.agent_id)} as integer), cast(${Number(kind.markdown)} as integer), cast(${kind.status === null ? -1 : Number(kind.status)} as integer), cast(${Number(kind.verification)} as integer))`,
      );
      await sql`update analytics_events set counted = ${code}
        where project_key = ${projectKey}
        and (agent_id, markdown, coalesce(status, -1), verification) in (values ${sql.join(tuples)})`.execute(trx);
    }
  }
}

/** Entry flags and sources of every view of the project, by the 30-minute rule over each visitor's views in time order. */
async function recomputeVisits(trx: Kysely<Database>, profile: DialectProfile, projectKey: number): Promise<void> {
  const rowId = sql.raw(profile.rowId.column);
  await sql`with ordered as (
      select ${rowId} as id, visitor_id, at, referrer_id,
        case when lag(at) over (partition by visitor_id order by at, ${rowId}) is null
          or at - lag(at) over (partition by visitor_id order by at, ${rowId}) > ${sql.lit(visitGapMs)} then 1 else 0 end as entry
      from analytics_events where project_key = ${projectKey}
    ), numbered as (
      select id, visitor_id, at, referrer_id, entry,
        sum(entry) over (partition by visitor_id order by at, id rows unbounded preceding) as visit
      from ordered
    ), sourced as (
      select id, entry, first_value(referrer_id) over (partition by visitor_id, visit order by at, id) as source_id from numbered
    )
    update analytics_events set entry = sourced.entry, source_id = sourced.source_id
    from sourced where analytics_events.${rowId} = sourced.id`.execute(trx);
}

/** Recomputes a project's classes, traits and visits in one transaction; the process forgets its visits in progress. */
export async function rebuildDimensions(storage: { db: Kysely<Database>; profile: DialectProfile }, dictionary: Dictionary, projectKey: number): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await recountClasses(trx, dictionary, projectKey);
    await recomputeVisits(trx, storage.profile, projectKey);
  });
  forgetVisits(dictionary, projectKey);
}
