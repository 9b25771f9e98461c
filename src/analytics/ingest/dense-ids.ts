import { sql, type Kysely } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { IdentityCache } from './identity-cache.ts';
import { VisitorLogCopy } from './visitor-log.ts';

/**
 * Maps what views name (projects, paths, user agents, visitor keys) to dense integers, so events and
 * visitor sets store small numbers. Ids never change once assigned, so every process may cache them;
 * new entries reach the cache only after the transaction that created them commits (`learn`).
 */
export class Dictionary {
  readonly projects = new Map<string, number>();
  readonly paths = new Map<number, Map<string, number>>();
  readonly pathNames = new Map<number, Map<number, string>>();
  /** User agent to agent id; replaced by an empty map once it holds `dictionaryLimits.agents` (see `learnAgent`). */
  agents = new Map<string, number>();
  /** Referring host to referrer id (shared by every project, like agents); bounded as `agents` is. */
  referrers = new Map<string, number>();
  /** Paths held in `paths`, all projects together. */
  #pathCount = 0;
  /** Id blocks of the project counters, where reservations commit on their own. */
  readonly blocks = new IdBlocks();
  /** Visitor ids of visitor keys, per project (see visitor-identity.ts). */
  readonly identities = new IdentityCache();
  /** This process's copy of the log of new visitors (SQLite; see visitor-log.ts). */
  readonly visitorLog = new VisitorLogCopy();

  learnPaths(projectKey: number, entries: Iterable<[string, number]>): void {
    for (const [path, id] of entries) {
      // Every project's paths start over at the limit: new maps, so a lookup under way keeps the one it read.
      if (this.#pathCount >= dictionaryLimits.paths) {
        this.paths.clear();
        this.pathNames.clear();
        this.#pathCount = 0;
      }
      let byName = this.paths.get(projectKey);
      let byId = this.pathNames.get(projectKey);
      if (!byName) this.paths.set(projectKey, (byName = new Map()));
      if (!byId) this.pathNames.set(projectKey, (byId = new Map()));
      if (!byName.has(path)) this.#pathCount++;
      byName.set(path, id);
      byId.set(id, path);
    }
  }

  learnAgent(agent: string, id: number): void {
    if (this.agents.size >= dictionaryLimits.agents) this.agents = new Map();
    this.agents.set(agent, id);
  }

  learnReferrer(host: string, id: number): void {
    if (this.referrers.size >= dictionaryLimits.referrers) this.referrers = new Map();
    this.referrers.set(host, id);
  }
}

/**
 * Entries the dictionary's caches hold at most: what views name comes from clients, and a tenant posting a new
 * 2 KB user agent, path and referrer with each view grew the process by 19 MB a batch of 3,000, for good. At the
 * limit a cache starts over (a miss costs a lookup); the maps are replaced, not emptied, so a call that read one
 * before finds what it read. Real sites stay far below: thousands of pages, agents and referring hosts.
 */
export const dictionaryLimits = { paths: 500_000, agents: 100_000, referrers: 100_000 };

/** The project's small integer key, creating its analytics row on first use. */
export async function projectKey(db: Kysely<Database>, dictionary: Dictionary, projectId: string): Promise<number> {
  const known = dictionary.projects.get(projectId);
  if (known !== undefined) return known;
  await db
    .insertInto('analytics_projects')
    .values({ project_id: projectId })
    .onConflict((conflict) => conflict.column('project_id').doNothing())
    .execute();
  const row = await db.selectFrom('analytics_projects').select('project_key').where('project_id', '=', projectId).executeTakeFirstOrThrow();
  dictionary.projects.set(projectId, Number(row.project_key));
  return Number(row.project_key);
}

/** The project key when the project has analytics data, without creating anything. */
export async function existingProjectKey(db: Kysely<Database>, dictionary: Dictionary, projectId: string): Promise<number | undefined> {
  const known = dictionary.projects.get(projectId);
  if (known !== undefined) return known;
  const row = await db.selectFrom('analytics_projects').select('project_key').where('project_id', '=', projectId).executeTakeFirst();
  if (row) dictionary.projects.set(projectId, Number(row.project_key));
  return row ? Number(row.project_key) : undefined;
}

export type Counter = 'next_visitor' | 'next_path';

/** Reserves `count` consecutive ids from a project counter (the row lock makes concurrent callers take turns). */
export async function reserve(db: Kysely<Database>, key: number, counter: Counter, count: number): Promise<number> {
  const row = await db
    .updateTable('analytics_projects')
    .set({ [counter]: sql`${sql.ref(counter)} + ${count}` })
    .where('project_key', '=', key)
    .returning(counter)
    .executeTakeFirstOrThrow();
  return Number((row as Record<Counter, number>)[counter]) - count;
}

/** The first id a project counter gives (the columns' default, migration 003): the value of a counter that gave none. */
export const firstId = 1;

/** A project counter's value: the next id it will give. */
export async function counterValue(db: Kysely<Database>, key: number, counter: Counter): Promise<number> {
  const row = await db.selectFrom('analytics_projects').select(counter).where('project_key', '=', key).executeTakeFirstOrThrow();
  return Number((row as Record<Counter, number>)[counter]);
}

/** Reserves `count` consecutive ids of a counter of the project being written; returns the first. */
export type ReserveIds = (counter: Counter, count: number) => Promise<number>;

/**
 * How a transaction of project `key` reserves ids. Where writers run side by side (PostgreSQL), a
 * counter's row lock held to commit would make them take turns: ids come from blocks reserved in
 * their own short transactions, and a rollback leaves a harmless gap. Where writers take turns
 * (SQLite), ids are reserved inside `trx`.
 */
export function idReserver(storage: Pick<Storage, 'db' | 'profile'>, dictionary: Dictionary, trx: Kysely<Database>, key: number): ReserveIds {
  return storage.profile.concurrentWrites > 1
    ? (counter, count) => dictionary.blocks.take(storage.db, key, counter, count)
    : (counter, count) => reserve(trx, key, counter, count);
}

/** Ids a counter reservation takes at least, where reservations commit on their own (see IdBlocks). */
const blockSize = 4096;

/**
 * Ids handed out from blocks this process reserved, for writers side by side (PostgreSQL), whose
 * reservations commit on their own: one round trip per block rather than one per call. A block's ids
 * are this process's alone, so they never go to two callers; those left when the process stops, or
 * when a call needs more than its block holds, are a harmless gap. Never used where a reservation
 * would roll back with its transaction: the block would be handed out again.
 */
export class IdBlocks {
  readonly #blocks = new Map<string, { next: number; end: number }>();

  async take(db: Kysely<Database>, key: number, counter: Counter, count: number): Promise<number> {
    const name = `${key} ${counter}`;
    const block = this.#blocks.get(name);
    if (block !== undefined && block.end - block.next >= count) {
      block.next += count;
      return block.next - count;
    }
    const size = Math.max(count, blockSize);
    const first = await reserve(db, key, counter, size);
    this.#blocks.set(name, { next: first + count, end: first + size });
    return first;
  }
}

const chunkSize = 500;

function chunks<T>(values: T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < values.length; start += chunkSize) result.push(values.slice(start, start + chunkSize));
  return result;
}

/**
 * Ids of normalized paths, assigning new ones inside `trx` (same rules as visitor ids, see
 * visitor-identity.ts); ids are reserved through `reserveIds`.
 */
export async function pathIds(
  trx: Kysely<Database>,
  dictionary: Dictionary,
  key: number,
  paths: string[],
  reserveIds: ReserveIds = (counter, count) => reserve(trx, key, counter, count),
): Promise<{ ids: Map<string, number>; learned: Map<string, number> }> {
  const cache = dictionary.paths.get(key);
  const learned = new Map<string, number>();
  // Sorted: writers side by side insert in one order, so neither waits on a row the other waits for.
  const missing = [...new Set(paths)].filter((path) => !cache?.has(path)).sort();
  const lookup = async (part: string[]) => {
    const rows = await trx.selectFrom('analytics_paths').select(['path', 'path_id']).where('project_key', '=', key).where('path', 'in', part).execute();
    for (const row of rows) learned.set(row.path, Number(row.path_id));
  };
  for (const part of chunks(missing)) await lookup(part);
  const fresh = missing.filter((path) => !learned.has(path));
  if (fresh.length > 0) {
    const first = await reserveIds('next_path', fresh.length);
    for (const part of chunks(fresh.map((path, index) => ({ project_key: key, path, path_id: first + index })))) {
      await trx
        .insertInto('analytics_paths')
        .values(part)
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
    for (const part of chunks(fresh)) await lookup(part);
  }
  const ids = new Map<string, number>();
  for (const path of new Set(paths)) ids.set(path, cache?.get(path) ?? learned.get(path)!);
  return { ids, learned };
}

/** Ids of user agents (shared by every project; ids come from the table's identity column). */
export async function agentIds(
  trx: Kysely<Database>,
  dictionary: Dictionary,
  userAgents: string[],
): Promise<{ ids: Map<string, number>; learned: Map<string, number> }> {
  const learned = new Map<string, number>();
  const known = dictionary.agents;
  const missing = [...new Set(userAgents)].filter((agent) => !known.has(agent)).sort();
  for (const part of chunks(missing)) {
    await trx
      .insertInto('analytics_agents')
      .values(part.map((user_agent) => ({ user_agent })))
      .onConflict((conflict) => conflict.column('user_agent').doNothing())
      .execute();
    const rows = await trx.selectFrom('analytics_agents').select(['user_agent', 'agent_id']).where('user_agent', 'in', part).execute();
    for (const row of rows) learned.set(row.user_agent, Number(row.agent_id));
  }
  const ids = new Map<string, number>();
  for (const agent of new Set(userAgents)) ids.set(agent, known.get(agent) ?? learned.get(agent)!);
  return { ids, learned };
}

/** The paths of `needed` path ids of a project (for answers), from the cache or the database (which fills the cache). */
export async function pathNames(db: Kysely<Database>, dictionary: Dictionary, key: number, needed: Iterable<number>): Promise<Map<number, string>> {
  const known = dictionary.pathNames.get(key);
  const names = new Map<number, string>();
  const unknown: number[] = [];
  for (const id of new Set(needed)) {
    const name = known?.get(id);
    if (name === undefined) unknown.push(id);
    else names.set(id, name);
  }
  for (const part of chunks(unknown)) {
    const rows = await db.selectFrom('analytics_paths').select(['path', 'path_id']).where('project_key', '=', key).where('path_id', 'in', part).execute();
    const found = rows.map((row): [string, number] => [row.path, Number(row.path_id)]);
    dictionary.learnPaths(key, found);
    for (const [path, id] of found) names.set(id, path);
  }
  return names;
}
