import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { dialectProfiles, type Storage } from '../dialect.ts';
import { listenForNotifications } from './listen.ts';
import { reportingUnavailable } from './unavailable.ts';
import type { Database } from '../schema.ts';

// Timestamps and counters are BIGINT; every value Quire stores fits in a double exactly.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PostgresOptions {
  connectionString: string;
  poolSize: number;
  /** Milliseconds after which PostgreSQL cancels a statement; 0 disables the limit. */
  statementTimeoutMs: number;
  /** Schema to work in (tests isolate themselves this way); default `public`. */
  schema?: string;
  /** Called when an idle pooled connection fails (the pool replaces it; this only reports). */
  onConnectionError?: (error: Error) => void;
}

export function openPostgres(options: PostgresOptions): Storage {
  const searchPath = options.schema ? `-c search_path=${options.schema}` : '';
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize,
    statement_timeout: options.statementTimeoutMs || undefined,
    options: searchPath || undefined,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', (error) => options.onConnectionError?.(error));
  // A connection can also die while checked out (a transaction between statements, say). The pool's
  // listener covers idle clients only; without this one the client's 'error' event would be
  // unhandled and end the process. The statement in flight still fails and is answered as such.
  pool.on('connect', (client) => client.on('error', (error) => options.onConnectionError?.(error)));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: reportingUnavailable(pool) }) });
  return {
    db,
    profile: dialectProfiles.postgres,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async notify(trx, channel, payloads = ['']) {
      if (payloads.length === 1) await sql`select pg_notify(${channel}, ${payloads[0]})`.execute(trx);
      else if (payloads.length > 1) await sql`select pg_notify(${channel}, payload) from unnest(${[...payloads]}::text[]) as payload`.execute(trx);
    },
    listen(channel, onNotify) {
      return listenForNotifications({ connectionString: options.connectionString, channel, onNotify, onError: options.onConnectionError });
    },
    changeClock: null,
    readers: null,
    writer: null,
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    deferDurability: async (work) => ({ value: await work(), durable: Promise.resolve() }),
    readSnapshot: (work) => db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work),
    async close() {
      await db.destroy();
    },
  };
}
