import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quireCommands } from '../support/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'quire-cli-import-'));
const { quire } = quireCommands({ ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('quire analytics import', () => {
  it('ends its progress with the totals of the summary, not those seen before the views were stored', async () => {
    const org = JSON.parse((await quire('orgs', 'create', '--name', 'Docs team', '--json')).stdout);
    const project = JSON.parse((await quire('projects', 'create', '--name', 'Handbook', '--org', org.id, '--json')).stdout);
    const line = (method: string, path: string) =>
      `203.0.113.7 - - [21/Nov/2026:09:30:00 +0100] "${method} ${path} HTTP/1.1" 200 5120 "https://example.com/" "${chrome}"`;
    const log = join(dataDir, 'access.log');
    const lines = [line('GET', '/a'), line('POST', '/b'), line('GET', '/c'), line('POST', '/d'), line('GET', '/e'), line('POST', '/f'), line('GET', '/g')];
    writeFileSync(log, `${lines.join('\n')}\n`);

    const { stdout, stderr } = await quire('analytics', 'import', '--project', project.id, '--format', 'combined', log);
    expect(stdout).toContain('Read 7 lines: 4 views accepted, 3 skipped.');
    const progress = stderr.trim().split('\n');
    expect(progress.at(-1)).toMatch(/100% 7 lines, 4 accepted, 3 skipped$/);
  });
});
