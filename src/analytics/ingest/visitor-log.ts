/**
 * SQLite's log of new visitors (`analytics_visitor_log`), and this process's copy of it in memory.
 *
 * New visitors are appended to the log in the order they arrive, so a commit writes the log's last page
 * or two instead of a page per visitor at random places of an index; it moves into `analytics_visitors`
 * in bulk (visitor-identity.ts). The log has no index by visitor hash: a process finds visitors in it
 * through its copy, a map per project from visitor hash to id, read from the log by `seq`.
 *
 * The copy is exact for lookups made in a write transaction (writers take turns on SQLite): before it is
 * used, it reads the rows appended since it last looked, by this process or any other. It never reads
 * rows that the transaction itself appended, which a rollback could take back: a transaction notes the
 * log's last `seq` before its first append (`append`) and reads only up to it. Its own rows it finds in
 * what it appended, kept beside the copy for that transaction alone; a later transaction reads them from
 * the log, once committed. Rows moved out of the log stay in the copy, true still (an id,
 * once given, never changes), until the copy is dropped (`forget`, or past `maxEntries`) and read again.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';

interface LogRow {
  seq: number;
  project_key: number;
  visitor_hash: string;
  visitor_id: number;
}

/**
 * Logged visitors moved into the index at once (visitor-identity.ts). A move rewrites most pages of the index
 * whatever its size, so fewer, larger moves write less; the log's size costs nothing to appends or lookups.
 */
export const mergeThreshold = 200_000;

/** Entries beyond which the copy is dropped and read again, in case another process moved the log's rows: a few tens of megabytes. */
const maxEntries = 2 * mergeThreshold;

/** What a transaction that appended to the log holds: the log's last `seq` before its first append, and its own rows by project. */
interface Appending {
  ceiling: number;
  appended: Map<number, Map<string, number>>;
}

export class VisitorLogCopy {
  readonly #projects = new Map<number, Map<string, number>>();
  /** The last `seq` read. */
  #last = 0;
  /** Per transaction that appended: it reads nothing past its ceiling, and finds its own rows in `appended`, gone with it. */
  readonly #appending = new WeakMap<Kysely<Database>, Appending>();

  /** Sets ids of `hashes` of project `key` found in the log (as of `trx`, which writes) into `ids`. */
  async find(trx: Kysely<Database>, key: number, hashes: Iterable<string>, ids: Map<string, number>): Promise<void> {
    await this.#catchUp(trx);
    for (const known of [this.#projects.get(key), this.#appending.get(trx)?.appended.get(key)]) {
      if (known === undefined) continue;
      for (const hash of hashes) {
        const id = known.get(hash);
        if (id !== undefined) ids.set(hash, id);
      }
    }
  }

  /** Appends visitors of project `key` to the log in `trx` (through `insert`), noting how far the copy may read in it. */
  async append(trx: Kysely<Database>, key: number, rows: { visitor_hash: string; visitor_id: number }[], insert: () => Promise<unknown>): Promise<void> {
    let appending = this.#appending.get(trx);
    if (appending === undefined) {
      const { rows: last } = await trx.executeQuery<{ last: number | null }>(CompiledQuery.raw('select max(seq) as last from analytics_visitor_log'));
      this.#appending.set(trx, (appending = { ceiling: Number(last[0]?.last ?? 0), appended: new Map() }));
    }
    await insert();
    let appended = appending.appended.get(key);
    if (appended === undefined) appending.appended.set(key, (appended = new Map()));
    for (const row of rows) appended.set(row.visitor_hash, row.visitor_id);
  }

  /** Drops the copy (after the log was moved into `analytics_visitors`): the next lookup reads the log anew. */
  forget(): void {
    this.#projects.clear();
    this.#last = 0;
  }

  async #catchUp(trx: Kysely<Database>): Promise<void> {
    let entries = 0;
    for (const known of this.#projects.values()) entries += known.size;
    if (entries > maxEntries) this.forget();
    const ceiling = this.#appending.get(trx)?.ceiling ?? Number.MAX_SAFE_INTEGER;
    if (ceiling <= this.#last) return;
    const { rows } = await trx.executeQuery<LogRow>(
      CompiledQuery.raw('select seq, project_key, visitor_hash, visitor_id from analytics_visitor_log where seq > ? and seq <= ? order by seq', [
        this.#last,
        ceiling,
      ]),
    );
    for (const row of rows) {
      let known = this.#projects.get(row.project_key);
      if (known === undefined) this.#projects.set(row.project_key, (known = new Map()));
      known.set(row.visitor_hash, Number(row.visitor_id));
      this.#last = Number(row.seq);
    }
  }
}
