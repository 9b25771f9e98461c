import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type * as Kysely from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { kyselyBundle } from '../../src/lib/bundled-kysely.ts';

const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'quire-kysely-bundle-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A select and an insert compiled by a Kysely module (the package or the bundle) for SQLite, without a database. */
async function compiled(url: string): Promise<{ exports: string[]; sql: string[] }> {
  const kysely = (await import(url)) as typeof Kysely;
  const db = new kysely.Kysely<{ pages: { id: number; path: string } }>({
    dialect: {
      createAdapter: () => new kysely.SqliteAdapter(),
      createDriver: () => new kysely.DummyDriver(),
      createIntrospector: (db) => new kysely.SqliteIntrospector(db),
      createQueryCompiler: () => new kysely.SqliteQueryCompiler(),
    },
  });
  const select = db
    .selectFrom('pages')
    .select(['id', kysely.sql<string>`lower(path)`.as('path')])
    .where('id', 'in', [1, 2])
    .orderBy('id')
    .compile();
  const insert = db
    .insertInto('pages')
    .values({ id: 1, path: '/a' })
    .onConflict((conflict) => conflict.doNothing())
    .compile();
  return { exports: Object.keys(kysely).sort(), sql: [select.sql, insert.sql] };
}

describe('Kysely bundled into one file', () => {
  it('is built by npm install for the installed version', () => {
    expect(existsSync(kyselyBundle().path), 'npm install (postinstall) bundles Kysely: run npm run bundle:kysely').toBe(true);
  });

  it('exports what the package exports and compiles the same SQL', async () => {
    const out = join(directory, 'kysely.mjs');
    await run(process.execPath, ['scripts/bundle-kysely.ts', '--out', out]);
    const bundle = await compiled(pathToFileURL(out).href);
    expect(bundle.exports.length).toBeGreaterThan(100);
    expect(bundle).toEqual(await compiled('kysely'));
  });

  it('is what a CLI process loads for kysely, once asked to', async () => {
    const script = `
      const { useBundledKysely } = await import('./src/lib/bundled-kysely.ts');
      const before = import.meta.resolve('kysely');
      const used = useBundledKysely();
      console.log(JSON.stringify({ before, used, after: import.meta.resolve('kysely') }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    const answer = JSON.parse(stdout) as { before: string; used: boolean; after: string };
    expect(answer.before).toBe(pathToFileURL(kyselyBundle().entry).href);
    expect(answer).toMatchObject({ used: true, after: pathToFileURL(kyselyBundle().path).href });
  });
});
