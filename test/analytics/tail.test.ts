import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FormatName } from '../../src/analytics/importers/formats.ts';
import type { ImportSummary } from '../../src/analytics/importers/line-parser.ts';
import { importLog } from '../../src/analytics/importers/run.ts';
import { tailLog } from '../../src/analytics/importers/tail.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { quireCommands } from '../support/cli.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const line = (index: number) =>
  `203.0.113.${index % 250} - - [21/Nov/2026:08:${String(Math.floor(index / 60) % 60).padStart(2, '0')}:${String(index % 60).padStart(2, '0')} +0000] "GET /page-${index} HTTP/1.1" 200 10 "-" "${chrome}"\n`;
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_unused, index) => line(from + index)).join('');

/** Waits for a condition, checking every few milliseconds (a hang fails the test by its timeout). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe.each(testDatabases)('analytics tail on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let directory: string;
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => storage.close());
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const storedViews = async (projectKey?: number) => {
    const query = storage.db.selectFrom('analytics_events').select((eb) => eb.fn.countAll<number>().as('count'));
    const row = await (projectKey === undefined ? query : query.where('project_key', '=', projectKey)).executeTakeFirstOrThrow();
    return Number(row.count);
  };
  const projectKeyOf = async (projectId: string) =>
    (await storage.db.selectFrom('analytics_projects').select('project_key').where('project_id', '=', projectId).executeTakeFirst())?.project_key;

  /** Starts a tail in this process; `summary()` is the latest stored batch's summary. */
  async function follow(file: string, format: FormatName = 'combined', tenant?: Tenant) {
    tenant ??= await createTenant(storage);
    const stop = new AbortController();
    let latest: ImportSummary | undefined;
    const done = tailLog(createAnalyticsState(storage), tenant.project, format, file, {
      signal: stop.signal,
      pollMilliseconds: 10,
      onBatch: (summary) => (latest = { ...summary }),
    });
    return {
      tenant,
      summary: () => latest,
      accepted: () => latest?.accepted ?? 0,
      stop: async () => {
        stop.abort();
        return done;
      },
    };
  }

  it('follows a file across rotation by rename, reading the old file to its end, and holds back a partial last line', async () => {
    directory = mkdtempSync(join(tmpdir(), 'quire-tail-'));
    const file = join(directory, 'access.log');
    writeFileSync(file, lines(0, 5));
    const tail = await follow(file);
    await until(() => tail.accepted() === 5);
    appendFileSync(file, `${lines(5, 7)}${line(7).slice(0, 30)}`);
    await until(() => tail.accepted() === 7);
    // The unfinished line is not read; finishing it makes it a view.
    appendFileSync(file, line(7).slice(30));
    await until(() => tail.accepted() === 8);
    // logrotate: rename, then the server writes a new file; the old one gets a last line before it is reopened.
    renameSync(file, `${file}.1`);
    appendFileSync(`${file}.1`, line(8));
    writeFileSync(file, lines(100, 103));
    await until(() => tail.accepted() === 12);
    const summary = await tail.stop();
    expect(summary).toMatchObject({ lines: 12, accepted: 12, skipped: 0 });
    expect(await storedViews(await projectKeyOf(tail.tenant.project.id))).toBe(12);
  });

  it('skips a line longer than 1 MiB as it arrives, keeps going, and resumes after it; an import of the file then finds every view', async () => {
    directory = mkdtempSync(join(tmpdir(), 'quire-tail-'));
    const file = join(directory, 'access.log');
    const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
    const position = async (projectId: string) =>
      (await storage.db.selectFrom('analytics_tail_positions').select('position').where('project_id', '=', projectId).executeTakeFirst())?.position;
    // The file's first line is over-long too: its identity and its lines' keys come from the line's first 64 KiB.
    writeFileSync(file, `${'z'.repeat(2 * 1024 * 1024)}\n${lines(0, 3)}`);
    const tail = await follow(file);
    await until(() => tail.accepted() === 3);
    // An over-long line written in parts, read across polls, then a line whose first part starts a read of its own.
    appendFileSync(file, 'y'.repeat(1536 * 1024));
    await pause();
    appendFileSync(file, `${'y'.repeat(1536 * 1024)}\n${lines(3, 5)}`);
    await until(() => tail.accepted() === 5);
    appendFileSync(file, line(5).slice(0, 30));
    await pause();
    appendFileSync(file, `${line(5).slice(30)}${lines(6, 7)}`);
    await until(() => tail.accepted() === 7);
    expect(tail.summary()).toMatchObject({ lines: 9, accepted: 7, skipped: 2, reasons: { 'line longer than 1 MiB': 2 } });
    await until(async () => (await position(tail.tenant.project.id)) === statSync(file).size);
    await tail.stop();

    // Restarted: it resumes after the over-long lines, reading only what was written since.
    appendFileSync(file, lines(7, 9));
    const resumed = await follow(file, 'combined', tail.tenant);
    await until(() => resumed.accepted() === 2);
    expect(await resumed.stop()).toEqual({ lines: 2, accepted: 2, skipped: 0, reasons: {}, notes: {} });

    // The same file imported: its keys are the tail's, so nothing counts twice.
    const imported = await importLog(createAnalyticsState(storage), tail.tenant.project, 'combined', file);
    expect(imported).toMatchObject({ lines: 11, accepted: 0, reasons: { 'line longer than 1 MiB': 2, 'already imported': 9 } });
    expect(await storedViews(await projectKeyOf(tail.tenant.project.id))).toBe(9);
  });

  it('starts again from the beginning after copytruncate', async () => {
    directory = mkdtempSync(join(tmpdir(), 'quire-tail-'));
    const file = join(directory, 'access.log');
    writeFileSync(file, lines(0, 4));
    const tail = await follow(file);
    await until(() => tail.accepted() === 4);
    truncateSync(file, 0);
    appendFileSync(file, lines(200, 202));
    await until(() => tail.accepted() === 6);
    // Even when the truncated file has grown past the old position before the tail looked.
    truncateSync(file, 0);
    appendFileSync(file, lines(300, 310));
    await until(() => tail.accepted() === 16);
    expect(await tail.stop()).toMatchObject({ accepted: 16, skipped: 0 });
  });

  it('resumes a CloudFront log past its header and still reads the columns its #Fields: line names', async () => {
    directory = mkdtempSync(join(tmpdir(), 'quire-tail-'));
    const file = join(directory, 'E2EXAMPLE.2026-11-21-08.log');
    // Columns in an order of the distribution's own choosing: read by the default order, the path would be the status.
    const fields = ['date', 'time', 'c-ip', 'cs-method', 'sc-status', 'cs-uri-stem', 'cs(User-Agent)'];
    const record = (index: number) =>
      `2026-11-21\t08:00:${String(index % 60).padStart(2, '0')}\t203.0.113.${index}\tGET\t200\t/guides/page-${index}\tMozilla/5.0%20Firefox/133.0\n`;
    writeFileSync(file, `#Version: 1.0\n#Fields: ${fields.join(' ')}\n${record(0)}${record(1)}`);
    const first = await follow(file, 'cloudfront');
    await until(() => first.accepted() === 2);
    await first.stop();
    appendFileSync(file, `${record(2)}${record(3)}${record(4)}`);
    const second = await follow(file, 'cloudfront', first.tenant);
    await until(() => second.accepted() === 3);
    expect(await second.stop()).toMatchObject({ lines: 3, accepted: 3, skipped: 0 });
    const paths = await storage.db
      .selectFrom('analytics_events')
      .innerJoin('analytics_paths', (join) =>
        join.onRef('analytics_paths.path_id', '=', 'analytics_events.path_id').onRef('analytics_paths.project_key', '=', 'analytics_events.project_key'),
      )
      .select('analytics_paths.path')
      .where('analytics_events.project_key', '=', (await projectKeyOf(first.tenant.project.id))!)
      .execute();
    expect(paths.map((row) => row.path).sort()).toEqual([0, 1, 2, 3, 4].map((index) => `/guides/page-${index}`));
  });

  it('prints a status line with lines per second and totals while it follows (plain lines when not on a terminal), and its summary when signalled twice', async () => {
    directory = mkdtempSync(join(tmpdir(), 'quire-tail-'));
    const file = join(directory, 'access.log');
    writeFileSync(file, lines(0, 400));
    const tenant = await createTenant(storage);
    const tail = spawn(
      process.execPath,
      ['src/cli/main.ts', 'analytics', 'tail', '--project', tenant.project.id, '--format', 'combined', file, '--poll', '20', '--status-every', '0.2'],
      { env: { ...process.env, ...storage.location.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let errors = '';
    let output = '';
    tail.stderr.on('data', (chunk) => (errors += chunk));
    tail.stdout.on('data', (chunk) => (output += chunk));
    try {
      await until(() => /400 lines, 400 views stored, 0 skipped/.test(errors));
      appendFileSync(file, lines(400, 450));
      await until(() => /450 lines, 450 views stored, 0 skipped/.test(errors));
    } finally {
      // Twice, as a supervisor and a wrapper that both pass the stop on would: the second, arriving while it stops, does
      // not end it before it prints its summary (cli/stop-signals.ts).
      const exit = new Promise<[number | null, string | null]>((resolve) => tail.once('exit', (code, signal) => resolve([code, signal])));
      tail.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 5));
      tail.kill('SIGTERM');
      expect(await exit).toEqual([0, null]);
    }
    expect(output).toContain('Read 450 lines: 450 views accepted, 0 skipped.');
    const statuses = errors.split('\n').filter((text) => text.includes('lines/s'));
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    for (const text of statuses) expect(text).toMatch(/^\d{4}-\d\d-\d\dT\S+Z [\d,]+ lines\/s; [\d,]+ lines, [\d,]+ views stored, \d+ skipped$/);
    // Some interval saw lines arrive: its rate is not zero.
    expect(statuses.some((text) => !/ 0 lines\/s/.test(text))).toBe(true);
  });

  it('refuses a poll or status interval longer than a timer can wait, which would run in a busy loop', async () => {
    const tenant = await createTenant(storage);
    const { quireFails } = quireCommands({ ...process.env, ...storage.location.env, LOG_LEVEL: 'silent' });
    const tail = (...flags: string[]) => quireFails('analytics', 'tail', '--project', tenant.project.id, '--format', 'combined', '/nonexistent.log', ...flags);
    expect(await tail('--poll', '3000000000')).toMatch(/--poll takes milliseconds, from 10 to 3600000/);
    expect(await tail('--status-every', '2500000')).toMatch(/--status-every takes a number of seconds, above 0 and at most 86400/);
  });

  it('resumes after the process is killed mid-file without counting a line twice or losing one', async () => {
    directory = mkdtempSync(join(tmpdir(), 'quire-tail-'));
    const file = join(directory, 'access.log');
    const total = 3000;
    writeFileSync(file, lines(0, total));
    const tenant = await createTenant(storage);
    const run = () =>
      spawn(
        process.execPath,
        ['src/cli/main.ts', 'analytics', 'tail', '--project', tenant.project.id, '--format', 'combined', file, '--poll', '20', '--batch-size', '50', '--json'],
        { env: { ...process.env, ...storage.location.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
    const position = async () =>
      (await storage.db.selectFrom('analytics_tail_positions').select('position').where('project_id', '=', tenant.project.id).executeTakeFirst())?.position ??
      0;
    const first = run();
    await until(async () => (await position()) > 0);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const second = run();
    let output = '';
    second.stdout.on('data', (chunk) => (output += chunk));
    const key = async () => projectKeyOf(tenant.project.id);
    await until(async () => (await storedViews(await key())) === total && (await position()) > 0);
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));
    expect(await storedViews(await key())).toBe(total);
    const summary = JSON.parse(output) as ImportSummary;
    // The second run read only what the first had not stored, give or take the lines of one uncommitted batch.
    expect(summary.lines).toBeLessThan(total);
    expect(summary.accepted + (summary.reasons['already imported'] ?? 0)).toBe(summary.lines);
  });
});
