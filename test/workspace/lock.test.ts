import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type * as FilePromises from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acquireLock } from '../../src/workspace/lock.ts';

/** Paths whose removal (rm, or a rename aside) waits for a gate, and those waiting at theirs. */
const gates = vi.hoisted(() => ({ closed: new Map<string, Promise<void>>(), waiting: [] as string[] }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FilePromises>();
  const gate = async (path: unknown) => {
    const closed = gates.closed.get(String(path));
    if (!closed) return;
    gates.waiting.push(String(path));
    await closed;
  };
  return {
    ...fs,
    rm: async (...args: Parameters<typeof fs.rm>) => {
      await gate(args[0]);
      return fs.rm(...args);
    },
    rename: async (...args: Parameters<typeof fs.rename>) => {
      await gate(args[0]);
      return fs.rename(...args);
    },
  };
});

let root: string;
let path: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'quire-lock-'));
  path = join(root, 'job.lock');
});
afterEach(() => {
  vi.useRealTimers();
  gates.closed.clear();
  gates.waiting.length = 0;
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
  rmSync(root, { recursive: true, force: true });
});

/** Sets the lock's last renewal `ageMs` ago. */
function renewedAgo(ageMs: number): void {
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
}

/** The lock taken by another process on the machine (test/support/lock-process.ts), once it holds it. */
async function holdInAnotherProcess(staleAfterMs: number) {
  const child = spawn(process.execPath, ['test/support/lock-process.ts', path, String(staleAfterMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value);
  expect(await next()).toBe('held');
  return {
    async ask(question: 'held?' | 'release') {
      child.stdin!.write(`${question}\n`);
      return next();
    },
  };
}

describe('locks shared by the processes of a machine', () => {
  it('tells a holder that stalled past the lapse that another process took its lock over, and never lets it renew or remove that lock', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stalled = await acquireLock(path, { staleAfterMs: 60_000 });
    // Its process stalled (a paused machine, SIGSTOP) and renewed nothing for two minutes: it counts as dead.
    renewedAgo(2 * 60_000);
    const other = await holdInAnotherProcess(60_000);
    expect(await stalled.held()).toBe(false);

    // The stalled holder wakes and its renewal comes due: the lock is not its own any more, so it stays as it was.
    renewedAgo(30_000);
    const renewed = statSync(path).mtimeMs;
    vi.advanceTimersByTime(20_000);
    await sleep(200);
    expect(statSync(path).mtimeMs).toBe(renewed);

    // Its release leaves the other process's lock, which a third holder still waits for.
    await stalled.release();
    expect(await other.ask('held?')).toBe('true');
    await expect(acquireLock(path, { staleAfterMs: 60_000, signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(await other.ask('release')).toBe('released');
    expect(existsSync(path)).toBe(false);
    const third = await acquireLock(path, { staleAfterMs: 60_000 });
    expect(await third.held()).toBe(true);
    await third.release();
  });

  it('lets one of two processes that find the same lapsed lock take it over, while the other waits for it', async () => {
    // A lock whose process died long ago.
    writeFileSync(path, 'token of a process that died');
    renewedAgo(10 * 60_000);
    // The second process names the lock by another path, so that only the lock file orders the two, as it orders two
    // processes. It has found the lock lapsed; its removal of it happens just after the first took the lock over.
    const elsewhere = `${root}/./job.lock`;
    let open!: () => void;
    gates.closed.set(elsewhere, new Promise<void>((resolve) => (open = resolve)));
    let secondIn = false;
    const second = acquireLock(elsewhere, { staleAfterMs: 60_000 }).then((lock) => {
      secondIn = true;
      return lock;
    });
    await vi.waitFor(() => expect(gates.waiting).toContain(elsewhere));
    const first = await acquireLock(path, { staleAfterMs: 60_000 });
    open();

    await sleep(300);
    expect(secondIn).toBe(false);
    expect(await first.held()).toBe(true);
    await first.release();
    const taken = await second;
    expect(await taken.held()).toBe(true);
    await taken.release();
    expect(readdirSync(root)).toEqual([]);
  });
});
