import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBenchProcess, type BenchProcess } from '../../bench/processes.ts';

// The analytics bench's reference ingester: its rate is only a reference if it does what it says it does.
describe('the reference ingester', () => {
  let dataDir: string;
  let server: BenchProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'quire-reference-'));
    server = await startBenchProcess('bench/ingest-reference-server.ts', [], { DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (body: string) =>
    fetch(`${server.info.url}/v1/analytics/prj_any/events`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

  it('answers after storing every event of a batch as one row, and refuses a body that is not JSON', async () => {
    const events = Array.from({ length: 1000 }, (_, index) => ({
      timestamp: 1_700_000_000_000 + index,
      path: `/docs/page-${index % 7}`,
      visitorId: `visitor-${index % 13}`,
      userAgent: 'Mozilla/5.0',
      referrer: index % 2 === 0 ? 'https://example.com/' : undefined,
    }));
    const answers = await Promise.all([post(JSON.stringify({ events })), post(JSON.stringify({ events: events.slice(0, 10) }))]);
    expect(answers.map((answer) => answer.status)).toEqual([202, 202]);
    expect(await Promise.all(answers.map(async (answer) => ((await answer.json()) as { accepted: number }).accepted))).toEqual([1000, 10]);
    expect((await post('{"events": [')).status).toBe(400);

    // Read from the file while the server still runs: what was answered is committed.
    const database = new DatabaseSync(join(dataDir, 'reference.db'), { readOnly: true });
    try {
      const rows = database.prepare('select count(*) as rows, count(distinct path) as paths, count(referrer) as referrers from events').get();
      expect(rows).toEqual({ rows: 1010, paths: 7, referrers: 505 });
    } finally {
      database.close();
    }
  });
});
