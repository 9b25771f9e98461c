import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Storage } from './dialect.ts';

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

const here = fileURLToPath(new URL('.', import.meta.url));

/** Numbered migrations of one dialect: `<dialect>/migrations/NNN_name.sql`, applied in order. */
export function loadMigrations(dialect: Storage['profile']['name']): Migration[] {
  const folder = join(here, dialect, 'migrations');
  return readdirSync(folder)
    .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      statements: statementsOf(readFileSync(join(folder, file), 'utf8')),
    }));
}

/**
 * A migration file's statements, without their comment lines. node:sqlite prepares one statement at a
 * time, so files are split at line-ending semicolons, except inside a dollar-quoted body (`$$ … $$`, a
 * PostgreSQL function's), whose own statements end so.
 */
function statementsOf(text: string): string[] {
  const statements: string[] = [];
  let lines: string[] = [];
  let quoted = false;
  for (const line of text.split('\n')) {
    if (!quoted && /^\s*--/.test(line)) continue;
    lines.push(line);
    if ((line.split('$$').length - 1) % 2 === 1) quoted = !quoted;
    if (!quoted && /;\s*$/.test(line)) {
      statements.push(lines.join('\n').replace(/;\s*$/, ''));
      lines = [];
    }
  }
  statements.push(lines.join('\n'));
  return statements.map((statement) => statement.trim()).filter(Boolean);
}

/**
 * Applies pending migrations, each in its own transaction. Safe to run from several processes at
 * once: migrators serialize on a lock and skip versions another one applied.
 * Returns the versions this call applied.
 */
export async function migrate(storage: Storage): Promise<Migration[]> {
  const { db, profile } = storage;
  // Under the setup lock too: PostgreSQL's `create table if not exists` is not safe against itself
  // (two processes starting together can both try to create the table's type and one fails).
  await db.transaction().execute(async (trx) => {
    if (profile.setupLock) await sql.raw(profile.setupLock).execute(trx);
    await sql`create table if not exists quire_migrations (version integer primary key, name text not null, applied_at bigint not null)`.execute(trx);
  });
  const applied: Migration[] = [];
  for (const migration of loadMigrations(profile.name)) {
    await db.transaction().execute(async (trx) => {
      if (profile.setupLock) await sql.raw(profile.setupLock).execute(trx);
      const done = await trx.selectFrom('quire_migrations').select('version').where('version', '=', migration.version).executeTakeFirst();
      if (done) return;
      for (const statement of migration.statements) await sql.raw(statement).execute(trx);
      await trx.insertInto('quire_migrations').values({ version: migration.version, name: migration.name, applied_at: Date.now() }).execute();
      applied.push(migration);
    });
  }
  return applied;
}
