import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CheckoutHeldError, WorkspaceGitError, WorkspacePathError, type Workspace } from '../../src/workspace/types.ts';
import { endSessionLease, renewSessionLease, sessionHoldsCheckout } from '../../src/workspace/session-lease.ts';
import { sweepWorkspaces } from '../../src/workspace/sweep.ts';
import { openWorkspace } from '../../src/workspace/workspace.ts';
import { commitToBareRepository, git } from '../support/git-repositories.ts';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.ts';

const credentials = { username: 'quire-test', password: 'sup3r-secret-git-token' };
const author = { name: 'Quire', email: 'quire@example.test' };

let server: GitHttpServer;
let root: string;
const opened: Workspace[] = [];

beforeAll(async () => {
  server = await startGitHttpServer({ ...credentials, privateFetch: true });
});
afterAll(() => server.close());
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'quire-workspaces-'));
});
afterEach(async () => {
  for (const workspace of opened.splice(0)) await workspace.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** The job a branch stands for here: the job's own branch names it, any other branch one job of its own. */
const jobOf = (branch: string) => (branch.startsWith('quire/') ? branch.slice('quire/'.length) : `job_${branch}`).replace(/[^A-Za-z0-9_]/g, '_');

async function open(repository: string, branch: string, ref: string | null = 'main', password = credentials.password): Promise<Workspace> {
  const workspace = await openWorkspace({ repository, ref, branch, jobId: jobOf(branch), root, credentials: { ...credentials, password } });
  opened.push(workspace);
  return workspace;
}

/** The mirror of the repository a test's workspaces share. */
const mirrorOf = () =>
  join(
    root,
    'mirrors',
    readdirSync(join(root, 'mirrors')).find((name) => !name.endsWith('.lock'))!,
  );

/**
 * What a run whose process died leaves of a job's checkout: the folder with an edit never committed, registered
 * in the repository's mirror (which an earlier job made), and a hold that process stopped renewing long ago.
 */
function leaveCrashedCheckout(jobId: string): string {
  const dir = join(root, 'workspaces', `quire-${jobId}`);
  git(mirrorOf(), 'worktree', 'add', '--quiet', '-B', `quire/${jobId}`, dir, 'origin/main');
  writeFileSync(join(dir, 'docs', 'half-done.md'), 'interrupted\n');
  mkdirSync(`${dir}.lock`);
  const renewed = new Date(Date.now() - 10 * 60_000);
  utimesSync(`${dir}.lock`, renewed, renewed);
  return dir;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WorkspaceGitError);
  expect((error as Error).message).not.toContain(credentials.password);
  return error as Error;
}

/** Every file under `dir`, so a test can prove a secret was written nowhere. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && statSync(join(entry.parentPath, entry.name)).size < 1_000_000)
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'))
    .join('\n');
}

describe('workspace over smart HTTP', () => {
  it('checks out the default branch on the job branch and pushes with credentials kept out of every file', async () => {
    const repository = server.createRepository('push');
    const workspace = await open(repository, 'quire/job_push', null);
    expect(workspace.baseBranch).toBe('main');
    expect(git(workspace.dir, 'branch', '--show-current').trim()).toBe('quire/job_push');
    expect(await workspace.hasChangesAgainstBase()).toBe(false);
    expect(await workspace.commitAll('Nothing', author)).toBe(false);

    await workspace.files.write('docs/faq.md', '# FAQ\n');
    expect(await workspace.commitAll('Add FAQ', author)).toBe(true);
    expect(await workspace.hasChangesAgainstBase()).toBe(true);
    await workspace.push();

    const remote = join(server.root, 'push.git');
    expect(git(remote, 'show', 'quire/job_push:docs/faq.md')).toBe('# FAQ\n');
    expect(git(remote, 'log', '-1', '--format=%an <%ae>', 'quire/job_push').trim()).toBe('Quire <quire@example.test>');
    const encoded = Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
    const stored = allText(root);
    expect(stored).not.toContain(credentials.password);
    expect(stored).not.toContain(encoded);
    expect(server.requests.some((request) => request.service === 'git-receive-pack' && request.status === 200)).toBe(true);
  });

  it('reuses the mirror: a second job on the repository downloads nothing new', async () => {
    const repository = server.createRepository('mirror');
    const before = server.requests.length;
    await open(repository, 'quire/job_first');
    const first = server.requests.slice(before).filter((request) => request.method === 'POST');
    const middle = server.requests.length;
    const second = await open(repository, 'quire/job_second');
    const again = server.requests.slice(middle).filter((request) => request.method === 'POST');
    expect(first.length).toBeGreaterThanOrEqual(2);
    // Only the reference listing: no pack is requested because the mirror already has every object.
    expect(again).toHaveLength(1);
    expect(again[0].bytes).toBeLessThan(first.reduce((sum, request) => sum + request.bytes, 0));
    expect(await second.files.read('docs/guide.md')).toContain('# Guide');
    expect(readdirSync(join(root, 'mirrors'))).toHaveLength(1);
  });

  it('checks out from what the mirror holds while it fetches, then moves to where the remote went', async () => {
    const repository = server.createRepository('moved');
    const bare = join(server.root, 'moved.git');
    const first = await open(repository, 'quire/job_before');
    await first.files.write('docs/mine.md', 'mine\n');
    await first.commitAll('Mine', author);
    await first.push();
    // The base and the job branch move on the remote after the mirror's last fetch.
    commitToBareRepository(bare, 'main', { 'docs/guide.md': '# Guide\n\nMoved on.\n', 'docs/added.md': '# Added\n' });
    commitToBareRepository(bare, 'quire/job_before', { 'docs/theirs.md': 'theirs\n' });
    await first.dispose();
    opened.splice(opened.indexOf(first), 1);

    const fresh = await open(repository, 'quire/job_after');
    expect(git(fresh.dir, 'rev-parse', 'HEAD').trim()).toBe(git(bare, 'rev-parse', 'main').trim());
    expect(await fresh.files.read('docs/guide.md')).toContain('Moved on.');
    expect(await fresh.files.read('docs/added.md')).toBe('# Added\n');
    expect(await fresh.hasUncommittedChanges()).toBe(false);
    expect(await fresh.hasChangesAgainstBase()).toBe(false);

    const continued = await open(repository, 'quire/job_before');
    expect(git(continued.dir, 'rev-parse', 'HEAD').trim()).toBe(git(bare, 'rev-parse', 'quire/job_before').trim());
    expect(await continued.files.read('docs/theirs.md')).toBe('theirs\n');
    expect(await continued.hasUncommittedChanges()).toBe(false);
  });

  it('leaves no checkout behind when the fetch fails or finds the new branch taken', async () => {
    const repository = server.createRepository('early');
    const bare = join(server.root, 'early.git');
    await open(repository, 'quire/job_warm');
    const mirror = join(
      root,
      'mirrors',
      readdirSync(join(root, 'mirrors')).find((name) => !name.endsWith('.lock'))!,
    );
    const dir = join(root, 'workspaces', 'quire-job_refused');

    expect((await failure(open(repository, 'quire/job_refused', 'main', 'wrong-password'))).message).toMatch(/could not sign in/);
    expect(existsSync(dir)).toBe(false);
    expect(git(mirror, 'branch', '--list', 'quire/job_refused')).toBe('');

    git(bare, 'branch', 'quire/job_refused', 'main');
    const taken = openWorkspace({ repository, ref: 'main', branch: 'quire/job_refused', jobId: 'job_refused', newBranch: true, root, credentials });
    expect((await failure(taken)).message).toMatch(/Branch quire\/job_refused already exists/);
    expect(existsSync(dir)).toBe(false);
    expect(git(mirror, 'branch', '--list', 'quire/job_refused')).toBe('');
    expect(git(mirror, 'worktree', 'list')).not.toContain('quire-job_refused');
  });

  it('runs two jobs on one repository at once without disturbing each other', async () => {
    const repository = server.createRepository('concurrent');
    const [one, two] = await Promise.all([open(repository, 'quire/job_one'), open(repository, 'quire/job_two')]);
    expect(one.dir).not.toBe(two.dir);
    await Promise.all([one.files.write('docs/one.md', 'one\n'), two.files.write('docs/index.md', 'two\n')]);
    await Promise.all([one.commitAll('One', author), two.commitAll('Two', author)]);
    await Promise.all([one.push(), two.push()]);
    const remote = join(server.root, 'concurrent.git');
    expect(git(remote, 'show', 'quire/job_one:docs/one.md')).toBe('one\n');
    expect(git(remote, 'show', 'quire/job_two:docs/index.md')).toBe('two\n');
    expect(git(remote, 'show', 'quire/job_one:docs/index.md')).toContain('Welcome');
  });

  it('gives two jobs whose branch names made one folder (docs/update, docs-update) a checkout each, untouched by the other', async () => {
    const repository = server.createRepository('lookalike');
    const openAs = async (jobId: string, branch: string) => {
      const workspace = await openWorkspace({ repository, ref: 'main', branch, jobId, root, credentials });
      opened.push(workspace);
      return workspace;
    };
    const victim = await openAs('job_01VVVVVVVVVVVVVVVVVVVVVVVV', 'docs/update');
    await victim.files.write('docs/secret.md', 'victim private\n');
    const other = await openAs('job_01OOOOOOOOOOOOOOOOOOOOOOOO', 'docs-update');
    expect(other.dir).not.toBe(victim.dir);
    // The other job neither reads the first one's files nor writes into its checkout.
    await expect(other.files.read('docs/secret.md')).rejects.toThrow();
    await other.files.write('docs/index.md', '# Planted\n');
    expect(await victim.files.read('docs/secret.md')).toBe('victim private\n');
    expect(await victim.files.read('docs/index.md')).toContain('Welcome');
    await other.dispose();
    opened.splice(opened.indexOf(other), 1);
    await victim.commitAll('Victim', author);
    await victim.push();
    expect(git(join(server.root, 'lookalike.git'), 'show', 'docs/update:docs/index.md')).toContain('Welcome');
    expect(git(join(server.root, 'lookalike.git'), 'show', 'docs/update:docs/secret.md')).toBe('victim private\n');
  });

  it('runs two jobs pushing to one branch name at once (two projects on one repository), each on its own branch in the mirror', async () => {
    const repository = server.createRepository('shared-name');
    const openAs = async (jobId: string) => {
      const workspace = await openWorkspace({ repository, ref: 'main', branch: 'docs/update', jobId, root, credentials });
      opened.push(workspace);
      return workspace;
    };
    const first = await openAs('job_01FFFFFFFFFFFFFFFFFFFFFFFF');
    const second = await openAs('job_01SSSSSSSSSSSSSSSSSSSSSSSS');
    expect(git(first.dir, 'branch', '--show-current').trim()).toBe('quire/job_01FFFFFFFFFFFFFFFFFFFFFFFF');
    await first.files.write('docs/first.md', 'first\n');
    await second.files.write('docs/second.md', 'second\n');
    await first.commitAll('First', author);
    await second.commitAll('Second', author);
    // The first one's end leaves the second one's branch and checkout as they were.
    await first.push();
    await first.dispose();
    opened.splice(opened.indexOf(first), 1);
    expect(await second.files.read('docs/second.md')).toBe('second\n');
    expect(await second.hasChangesAgainstBase()).toBe(true);
    const remote = join(server.root, 'shared-name.git');
    expect(git(remote, 'show', 'docs/update:docs/first.md')).toBe('first\n');
    // Both pushed to docs/update: the second is refused as any push behind the remote is, not lost to a shared branch.
    expect((await failure(second.push())).message).toMatch(/rejected the push of branch docs\/update/);
  });

  it('continues a job branch that exists on the remote and removes the checkout on dispose', async () => {
    const repository = server.createRepository('follow-up');
    const first = await open(repository, 'quire/job_follow');
    await first.files.write('docs/first.md', 'first\n');
    await first.commitAll('First run', author);
    await first.push();
    await first.dispose();
    opened.splice(opened.indexOf(first), 1);
    expect(() => statSync(first.dir)).toThrow();

    const again = await open(repository, 'quire/job_follow');
    expect(await again.files.read('docs/first.md')).toBe('first\n');
    expect(await again.hasChangesAgainstBase()).toBe(true);
    await again.files.write('docs/second.md', 'second\n');
    await again.commitAll('Second run', author);
    await again.push();
    expect(git(join(server.root, 'follow-up.git'), 'rev-list', '--count', 'main..quire/job_follow').trim()).toBe('2');
  });

  it('opens a job’s checkout for its next run only once the earlier run has taken back its push and removed its checkout', async () => {
    const repository = server.createRepository('cancelled');
    const cancelled = await open(repository, 'quire/job_cancelled');
    await cancelled.files.write('docs/cancelled.md', 'pushed as the cancel landed\n');
    await cancelled.commitAll('Cancelled run', author);
    await cancelled.push();
    // The cancelled run is still ending (taking its push back, then disposing) when a follow-up's run opens the job's checkout.
    const ending = cancelled.retractPush().then(() => cancelled.dispose());
    const followUp = await open(repository, 'quire/job_cancelled');
    await ending;
    opened.splice(opened.indexOf(cancelled), 1);
    expect(await followUp.files.read('docs/guide.md')).toContain('# Guide');
    expect(existsSync(join(followUp.dir, 'docs/cancelled.md'))).toBe(false);
    await followUp.files.write('docs/follow-up.md', 'follow-up\n');
    await followUp.commitAll('Follow-up', author);
    await followUp.push();
    const remote = join(server.root, 'cancelled.git');
    expect(git(remote, 'ls-tree', '-r', '--name-only', 'quire/job_cancelled', 'docs')).toMatch(/^docs\/follow-up\.md$/m);
    expect(git(remote, 'ls-tree', '-r', '--name-only', 'quire/job_cancelled', 'docs')).not.toContain('cancelled.md');
  });

  it('starts from a branch, an annotated tag, a tag of a tag and a commit id, and never from a branch a ref only prefixes', async () => {
    const repository = server.createRepository('refs');
    const bare = join(server.root, 'refs.git');
    const first = git(bare, 'rev-parse', 'main').trim();
    git(bare, 'tag', '--annotate', 'v1', '--message', 'First release', 'main');
    git(bare, 'tag', '--annotate', 'v1-again', '--message', 'The release, again', 'v1');
    git(bare, 'branch', 'release/1.0', 'main');
    commitToBareRepository(bare, 'main', { 'docs/guide.md': '# Guide\n\nRewritten.\n' });
    const later = git(bare, 'rev-parse', 'main').trim();
    for (const [ref, expected] of [
      ['main', later],
      ['v1', first],
      ['v1-again', first],
      ['release/1.0', first],
      [first, first],
    ]) {
      const workspace = await open(repository, `quire/job_ref-${opened.length}`, ref);
      expect(git(workspace.dir, 'rev-parse', 'HEAD').trim(), ref).toBe(expected);
    }
    expect((await failure(open(repository, 'quire/job_prefix', 'release'))).message).toMatch(/"release" does not exist/);
  });

  it('never starts from what only the shared mirror holds: another job’s unpushed branch or commit, by name or abbreviated id', async () => {
    const repository = server.createRepository('private');
    const openAs = async (jobId: string, branch: string, ref: string) => {
      const workspace = await openWorkspace({ repository, ref, branch, jobId, root, credentials });
      opened.push(workspace);
      return workspace;
    };
    const victim = await openAs('job_01VVVVVVVVVVVVVVVVVVVVVVVV', 'docs/victim', 'main');
    await victim.files.write('docs/unpushed.md', 'victim draft, never pushed\n');
    await victim.commitAll('Draft', author);
    const unpushed = git(victim.dir, 'rev-parse', 'HEAD').trim();
    for (const ref of ['quire/job_01VVVVVVVVVVVVVVVVVVVVVVVV', unpushed.slice(0, 7), unpushed]) {
      const attempt = openWorkspace({ repository, ref, branch: 'docs/other', jobId: 'job_01AAAAAAAAAAAAAAAAAAAAAAAA', root, credentials });
      expect((await failure(attempt)).message, ref).toMatch(/does not exist/);
    }
    // Once pushed, the commit is the remote's: its full id is a place to start from.
    await victim.push();
    const after = await openAs('job_01BBBBBBBBBBBBBBBBBBBBBBBB', 'docs/after', unpushed);
    expect(await after.files.read('docs/unpushed.md')).toBe('victim draft, never pushed\n');
  });

  it('checks out again over what a crashed run left: its folder and hold, or a registration whose folder is gone', async () => {
    const repository = server.createRepository('crashed');
    await open(repository, 'quire/job_earlier');
    const left = leaveCrashedCheckout('job_crashed');
    const again = await open(repository, 'quire/job_crashed');
    expect(again.dir).toBe(left);
    expect(existsSync(join(again.dir, 'docs/half-done.md'))).toBe(false);
    await again.dispose();
    expect(existsSync(`${left}.lock`)).toBe(false);
    rmSync(leaveCrashedCheckout('job_crashed'), { recursive: true, force: true });
    const third = await open(repository, 'quire/job_crashed');
    expect(await third.files.read('docs/guide.md')).toContain('# Guide');
    expect(git(third.dir, 'branch', '--show-current').trim()).toBe('quire/job_crashed');
  });

  it('writes, commits, pushes and removes nothing once another process took the checkout over from a run that stalled', async () => {
    const repository = server.createRepository('stalled');
    const stalled = await open(repository, 'quire/job_stalled');
    await stalled.files.write('docs/before.md', 'written while the run held its checkout\n');
    // The run's process stalled past the hold's lapse; another process's run of the job took the hold over (moved
    // the lapsed one aside, made its own) and checked out again.
    const hold = `${stalled.dir}.lock`;
    rmSync(hold);
    writeFileSync(hold, 'token of the run that took over');
    writeFileSync(join(stalled.dir, 'docs', 'next-run.md'), 'the next run’s work\n');

    const refusal = /Another run of job job_stalled took over its checkout/;
    await expect(stalled.files.write('docs/late.md', 'late\n')).rejects.toThrow(refusal);
    await expect(stalled.files.remove('docs/next-run.md')).rejects.toThrow(refusal);
    await expect(stalled.commitAll('Late', author)).rejects.toThrow(refusal);
    await expect(stalled.push()).rejects.toThrow(refusal);
    await stalled.retractPush();
    await stalled.dispose();
    opened.splice(opened.indexOf(stalled), 1);
    expect(readFileSync(join(stalled.dir, 'docs', 'next-run.md'), 'utf8')).toBe('the next run’s work\n');
    expect(existsSync(join(stalled.dir, 'docs', 'late.md'))).toBe(false);
    expect(readFileSync(hold, 'utf8')).toBe('token of the run that took over');
    expect(git(join(server.root, 'stalled.git'), 'branch', '--list', 'quire/job_stalled')).toBe('');
  });

  it('waits for a job’s checkout while another process on the machine holds it, and stops waiting when the run is cancelled', async () => {
    const repository = server.createRepository('held');
    const hold = join(root, 'workspaces', 'quire-job_held.lock');
    mkdirSync(hold, { recursive: true });
    let settled = false;
    const waiting = open(repository, 'quire/job_held').finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    expect(server.requests.some((request) => request.url.startsWith('/held.git'))).toBe(false);
    // That process's run of the job disposed of its workspace.
    rmSync(hold, { recursive: true });
    const held = await waiting;
    expect(await held.files.read('docs/guide.md')).toContain('# Guide');

    const controller = new AbortController();
    const cancelled = openWorkspace({ repository, ref: 'main', branch: 'quire/job_held', jobId: 'job_held', root, credentials, signal: controller.signal });
    controller.abort(new Error('job cancelled'));
    const stopped = await cancelled.catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(CheckoutHeldError);
    expect((stopped as Error).cause).toEqual(new Error('job cancelled'));
    expect(await held.files.read('docs/guide.md')).toContain('# Guide');
    await held.dispose();
    expect(existsSync(hold)).toBe(false);
    expect(await (await open(repository, 'quire/job_held')).files.read('docs/guide.md')).toContain('# Guide');
  });

  it('explains a missing repository, a missing ref and refused credentials without the secret', async () => {
    const repository = server.createRepository('errors');
    expect((await failure(open(`${server.url}/absent.git`, 'quire/job_absent'))).message).toMatch(/absent\.git was not found/);
    expect((await failure(open(repository, 'quire/job_ref', 'release-9'))).message).toMatch(/"release-9" does not exist/);
    const signIn = await failure(open(repository, 'quire/job_auth', 'main', 'wrong-password'));
    expect(signIn.message).toMatch(/could not sign in/);
    expect(signIn.message).not.toContain('wrong-password');
  });

  it('reports a rejected push when someone else moved the job branch', async () => {
    const repository = server.createRepository('rejected');
    const workspace = await open(repository, 'quire/job_race');
    commitToBareRepository(join(server.root, 'rejected.git'), 'main', { 'docs/other.md': 'other\n' });
    git(join(server.root, 'rejected.git'), 'branch', 'quire/job_race', 'main');
    await workspace.files.write('docs/mine.md', 'mine\n');
    await workspace.commitAll('Mine', author);
    expect((await failure(workspace.push())).message).toMatch(/rejected the push of branch quire\/job_race/);
  });

  it('refuses symbolic links that the repository itself contains', async () => {
    const repository = server.createRepository(
      'hostile',
      { 'README.md': '# Hostile\n' },
      { etc: '/etc', up: '..', hooks: '.git/hooks', 'docs/passwd.md': '/etc/passwd' },
    );
    const workspace = await open(repository, 'quire/job_hostile');
    for (const path of ['etc/passwd', 'up/mirrors', 'hooks/pre-commit', 'docs/passwd.md']) {
      await expect(workspace.files.read(path)).rejects.toBeInstanceOf(WorkspacePathError);
    }
    await expect(workspace.files.write('hooks/pre-commit', '#!/bin/sh\n')).rejects.toBeInstanceOf(WorkspacePathError);
    expect((await workspace.files.list()).map((entry) => entry.path)).toEqual(['README.md', 'docs']);
  });

  it('never lets a move put a link where its target leaves the checkout, whatever runs beside it', async () => {
    // Each link points inside the checkout where it is; two folders up it would point outside (at the data directory).
    writeFileSync(join(root, 'outside-secret.txt'), 'SERVER-ONLY secret\n');
    writeFileSync(join(root, 'outside-target.txt'), 'untouched\n');
    const repository = server.createRepository(
      'racing',
      { 'README.md': '# Racing\n', 'zzz/outside-secret.txt': 'inside\n', 'outside-target.txt': 'inside\n' },
      { 'a/b/link': '../..', 'w/x/link': '../../outside-target.txt' },
    );
    const workspace = await open(repository, 'quire/job_racing');
    const refusal = /is or holds a symbolic link, and Quire does not move links/;
    await expect(workspace.files.move('a/b/link', 'top')).rejects.toThrow(refusal);
    await expect(workspace.files.move('a', 'moved')).rejects.toThrow(refusal);
    // The attack: a search (or a write) checked while moves swap a folder for a link two folders up.
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.allSettled([
        workspace.files.search('SERVER-ONLY'),
        workspace.files.move('zzz', `kept-${round}`),
        workspace.files.move('a/b/link', 'zzz'),
        workspace.files.write(`c${round}`, 'WRITTEN BY TENANT\n'),
        workspace.files.move('w/x/link', `c${round}`),
      ]);
      expect(outcomes[0]).toEqual({ status: 'fulfilled', value: [] });
      expect(outcomes[2]).toMatchObject({ status: 'rejected' });
      expect(outcomes[4]).toMatchObject({ status: 'rejected' });
      await workspace.files.move(`kept-${round}`, 'zzz');
    }
    expect(readFileSync(join(root, 'outside-target.txt'), 'utf8')).toBe('untouched\n');
  });

  it('runs git without programs a repository’s configuration names (fsmonitor, hooks)', async () => {
    const repository = server.createRepository('configured');
    const workspace = await open(repository, 'quire/job_configured');
    const marker = join(root, 'ran');
    const mirror = join(
      root,
      'mirrors',
      readdirSync(join(root, 'mirrors')).find((name) => !name.endsWith('.lock'))!,
    );
    git(mirror, 'config', 'core.fsmonitor', `touch ${marker}; false`);
    mkdirSync(join(mirror, 'hooks'), { recursive: true });
    writeFileSync(join(mirror, 'hooks', 'pre-commit'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    await workspace.files.write('docs/new.md', 'new\n');
    expect(await workspace.hasUncommittedChanges()).toBe(true);
    expect(await workspace.commitAll('Change', author)).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('leaves a checkout alone while its admin MCP session’s lease is fresh, whatever its job’s status', async () => {
    server.createRepository('leased');
    const jobId = 'job_01KLLLLLLLLLLLLLLLLLLLLLLL';
    const session = await open(`${server.url}/leased.git`, `quire/${jobId}`);
    await session.files.write('docs/after-save.md', 'edited after the save\n');
    await renewSessionLease(root, jobId);
    // The job completed (a save), and the session goes on in another process: a worker's sweep keeps it.
    expect(await sweepWorkspaces(root, async () => false)).toBe(0);
    expect(await session.files.read('docs/after-save.md')).toBe('edited after the save\n');
    // A lease older than the sessions' idle time is a session whose process died, and stopped renewing the checkout's hold.
    expect(await sweepWorkspaces(root, async () => false, { sessionLeaseMs: 0 })).toBe(0);
    const renewed = new Date(Date.now() - 10 * 60_000);
    utimesSync(`${session.dir}.lock`, renewed, renewed);
    expect(await sweepWorkspaces(root, async () => false, { sessionLeaseMs: 0 })).toBe(1);
    expect(existsSync(session.dir)).toBe(false);
    expect(existsSync(join(root, 'workspaces', `quire-${jobId}.session`))).toBe(false);
    opened.splice(opened.indexOf(session), 1);
  });

  it('does not take a run’s hold for an admin MCP session whose process died and left its lease', async () => {
    server.createRepository('stale-lease');
    const jobId = 'job_01KSSSSSSSSSSSSSSSSSSSSSSS';
    const run = await open(`${server.url}/stale-lease.git`, `quire/${jobId}`);
    await renewSessionLease(root, jobId);
    expect(await sessionHoldsCheckout(root, jobId, 60)).toBe(true);
    // The lease was last renewed longer ago than the sessions' idle time and its margin: the run holds the checkout, not a session.
    const old = new Date(Date.now() - 63 * 60_000);
    utimesSync(join(root, 'workspaces', `quire-${jobId}.session`), old, old);
    expect(await sessionHoldsCheckout(root, jobId, 60)).toBe(false);
    await run.dispose();
    opened.splice(opened.indexOf(run), 1);
    await endSessionLease(root, jobId);
  });

  it('leaves a checkout alone while its run still holds it, though the job has ended: a cancelled run taking back its push', async () => {
    server.createRepository('ending');
    const jobId = 'job_01KEEEEEEEEEEEEEEEEEEEEEEE';
    const ending = await open(`${server.url}/ending.git`, `quire/${jobId}`);
    await ending.files.write('docs/raced.md', 'pushed as the cancel landed\n');
    await ending.commitAll('Raced the cancel', author);
    await ending.push();
    // The job is `failed` (cancelled), so not active; its run has not disposed of the workspace yet.
    expect(await sweepWorkspaces(root, async () => false)).toBe(0);
    expect(await ending.files.read('docs/raced.md')).toBe('pushed as the cancel landed\n');
    expect(git(ending.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`quire/${jobId}`);
    await ending.retractPush();
    expect(git(join(server.root, 'ending.git'), 'branch', '--list', `quire/${jobId}`)).toBe('');
    await ending.dispose();
    opened.splice(opened.indexOf(ending), 1);
    expect(existsSync(ending.dir)).toBe(false);
    expect(await sweepWorkspaces(root, async () => false)).toBe(0);
  });

  it('sweeps the checkouts that interrupted jobs left behind, and only those of jobs no longer active', async () => {
    server.createRepository('swept');
    const repository = `${server.url}/swept.git`;
    const ended = 'job_01KAAAAAAAAAAAAAAAAAAAAAAA';
    const active = 'job_01KBBBBBBBBBBBBBBBBBBBBBBB';
    const running = await open(repository, `quire/${active}`);
    const left = leaveCrashedCheckout(ended);
    const mirror = mirrorOf();
    expect(git(mirror, 'worktree', 'list')).toContain(`quire-${ended}`);

    expect(await sweepWorkspaces(root, async (jobId) => jobId === active)).toBe(1);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(`${left}.lock`)).toBe(false);
    expect(existsSync(running.dir)).toBe(true);
    expect(existsSync(`${running.dir}.lock`)).toBe(true);
    expect(git(mirror, 'worktree', 'list')).not.toContain(`quire-${ended}`);
    expect(git(mirror, 'branch', '--list', `quire/${ended}`)).toBe('');
    expect(await running.files.read('README.md')).toBeTruthy();
    // Nothing to do the second time; a directory that never became a checkout (a failed start) goes too.
    expect(await sweepWorkspaces(root, async (jobId) => jobId === active)).toBe(0);
    const stray = join(root, 'workspaces', 'quire-job_01KCCCCCCCCCCCCCCCCCCCCCCC');
    mkdirSync(stray);
    writeFileSync(join(stray, 'partial.md'), 'x');
    expect(await sweepWorkspaces(root, async (jobId) => jobId === active)).toBe(1);
    expect(existsSync(stray)).toBe(false);
    expect(existsSync(running.dir)).toBe(true);
  });

  it('works on a local repository given as a path or a file:// URL', async () => {
    server.createRepository('local');
    const local = join(server.root, 'local.git');
    const byPath = await open(local, 'quire/job_path');
    await byPath.files.write('docs/local.md', 'local\n');
    await byPath.commitAll('Local', author);
    await byPath.push();
    await byPath.dispose();
    opened.splice(opened.indexOf(byPath), 1);
    const byUrl = await open(`file://${local}`, 'quire/job_path');
    expect(await byUrl.files.read('docs/local.md')).toBe('local\n');
    expect(readdirSync(join(root, 'mirrors'))).toHaveLength(1);
  });
});
