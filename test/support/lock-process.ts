/**
 * Holds a lock in a process of its own, as another Quire process on the machine would:
 * `node test/support/lock-process.ts <path> <stale after ms>`. Prints `held` once it holds the lock, then
 * answers each line of its input: `held?` with `true` or `false`, `release` with `released` (and exits).
 */
import { createInterface } from 'node:readline';
import { acquireLock } from '../../src/workspace/lock.ts';

const lock = await acquireLock(process.argv[2], { staleAfterMs: Number(process.argv[3]) });
process.stdout.write('held\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'held?') process.stdout.write(`${await lock.held()}\n`);
  if (line === 'release') {
    await lock.release();
    process.stdout.write('released\n');
    break;
  }
}
