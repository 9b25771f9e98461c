import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** PostgreSQL server the scale-out benchmarks use (its own schema per measurement). */
export const benchPostgresUrl = process.env.QUIRE_BENCH_POSTGRES_URL ?? process.env.QUIRE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchDatabase {
  name: 'sqlite' | 'postgres';
  /** Environment that points a Quire process at this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: benchPostgresUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** QUIRE_BENCH_DATABASES=sqlite or =postgres runs the benches on that one alone. */
const chosen = process.env.QUIRE_BENCH_DATABASES?.split(',').map((name) => name.trim());

/** The databases a bench runs on: SQLite, and PostgreSQL when it answers (or those QUIRE_BENCH_DATABASES names). */
export async function benchDatabaseNames(): Promise<BenchDatabase['name'][]> {
  const all: BenchDatabase['name'][] = (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
  if (!chosen) return all;
  const unknown = chosen.filter((name) => !all.includes(name as BenchDatabase['name']));
  if (unknown.length > 0) throw new Error(`QUIRE_BENCH_DATABASES names ${unknown.join(', ')}: the databases here are ${all.join(', ')}.`);
  return all.filter((name) => chosen.includes(name));
}

/** Runs `work` on a fresh database of each of `benchDatabaseNames`, dropping each afterwards. */
export async function onEachDatabase(work: (database: BenchDatabase) => Promise<void>): Promise<void> {
  for (const name of await benchDatabaseNames()) {
    const database = await freshDatabase(name);
    try {
      await work(database);
    } finally {
      await database.drop();
    }
  }
}

let counter = 0;

/** A fresh, empty database: a new PostgreSQL schema, or a new SQLite directory. */
export async function freshDatabase(name: BenchDatabase['name']): Promise<BenchDatabase> {
  if (name === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-'));
    return { name, env: { QUIRE_DATA_DIR: dataDir }, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const schema = `quire_bench_${process.pid}_${counter++}`;
  const admin = new pg.Client({ connectionString: benchPostgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(benchPostgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    name,
    env: { DATABASE_URL: url.toString() },
    async drop() {
      const client = new pg.Client({ connectionString: benchPostgresUrl });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    },
  };
}
