import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliConfig } from '../../src/cli/database.ts';
import { loadConfig } from '../../src/config/config.ts';

const project = mkdtempSync(join(tmpdir(), 'quire-data-dir-'));
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'handbook', dependencies: { quire: '^0.1.0' } }));
const subdirectory = join(project, 'docs', 'guides');
mkdirSync(subdirectory, { recursive: true });

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('QUIRE_DATA_DIR', () => {
  it('means the default when it is empty', () => {
    expect(loadConfig({ QUIRE_DATA_DIR: '' }).dataDir).toBe('./data');
    expect(loadConfig({ QUIRE_DATA_DIR: '  ' }).dataDir).toBe('./data');
    expect(loadConfig({ QUIRE_DATA_DIR: 'var/quire' }).dataDir).toBe('var/quire');
  });

  it('is resolved against the project root when relative, from any directory inside it', () => {
    expect(cliConfig({}, subdirectory).dataDir).toBe(join(project, 'data'));
    expect(cliConfig({ QUIRE_DATA_DIR: '' }, subdirectory).dataDir).toBe(join(project, 'data'));
    expect(cliConfig({ QUIRE_DATA_DIR: 'var/quire' }, subdirectory).dataDir).toBe(join(project, 'var', 'quire'));
    expect(cliConfig({ QUIRE_DATA_DIR: '../shared' }, subdirectory).dataDir).toBe(join(project, '..', 'shared'));
  });

  it('is used as it is when absolute', () => {
    const absolute = join(tmpdir(), 'quire-elsewhere');
    expect(cliConfig({ QUIRE_DATA_DIR: absolute }, subdirectory).dataDir).toBe(absolute);
  });
});
