import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCommitTree } from '../../src/workspace/commit-tree.ts';
import { sweepWorkspaces } from '../../src/workspace/sweep.ts';
import { createBareRepository, git } from '../support/git-repositories.ts';

let root: string;
let repositories: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'quire-sweep-'));
  repositories = mkdtempSync(join(tmpdir(), 'quire-sweep-remotes-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(repositories, { recursive: true, force: true });
});

describe('sweeping what earlier versions left', () => {
  it('removes read-only snapshots whose lease lapsed, and stray leases, but never a snapshot whose lease is renewed', async () => {
    const remote = createBareRepository(join(repositories, 'docs.git'));
    const tree = await openCommitTree({ repository: remote, ref: 'main', root });
    await tree.dispose();
    const mirrors = join(root, 'mirrors');
    const mirror = join(
      mirrors,
      readdirSync(mirrors).find((name) => !name.endsWith('.lock'))!,
    );
    const snapshots = join(root, 'snapshots');
    mkdirSync(snapshots);
    const leave = (name: string, leaseAgeMinutes: number) => {
      const dir = join(snapshots, name);
      git(mirror, 'worktree', 'add', '--quiet', '--detach', dir, tree.commit);
      writeFileSync(`${dir}.lease`, '12345\n');
      const renewed = new Date(Date.now() - leaseAgeMinutes * 60_000);
      utimesSync(`${dir}.lease`, renewed, renewed);
      return dir;
    };
    const abandoned = leave('abandoned', 60);
    const held = leave('held', 1);
    // A lease whose snapshot was never made, and one whose snapshot's process is still starting.
    const stray = join(snapshots, 'never-made.lease');
    writeFileSync(stray, '12345\n');
    utimesSync(stray, new Date(Date.now() - 60 * 60_000), new Date(Date.now() - 60 * 60_000));
    writeFileSync(join(snapshots, 'starting.lease'), '12345\n');

    expect(await sweepWorkspaces(root, async () => false)).toBe(1);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(`${abandoned}.lease`)).toBe(false);
    expect(git(mirror, 'worktree', 'list')).not.toContain(abandoned);
    expect(existsSync(join(held, 'README.md'))).toBe(true);
    expect(git(mirror, 'worktree', 'list')).toContain(held);
    expect(readdirSync(snapshots).sort()).toEqual(['held', 'held.lease', 'starting.lease']);
    expect(await sweepWorkspaces(root, async () => false)).toBe(0);
  });
});
