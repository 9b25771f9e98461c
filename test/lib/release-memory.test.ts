import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/**
 * In a process of its own (a resident set is the whole process's): a thread builds about 300 MiB of objects and
 * drops them, and its resident memory is read before and after. V8 keeps the freed pages resident without a
 * collection made to reduce memory, so without the release the figure barely moves.
 */
async function residentAfterDroppingGarbage(
  release: 'none' | 'when idle' | 'when idle, but busy' | 'grown by 64 MiB' | 'grown by 64 GiB',
): Promise<{ before: number; after: number }> {
  const script = `
    import { releaseFreedMemoryIfGrown, releaseWhenIdle } from ${JSON.stringify(new URL('../../src/lib/release-memory.ts', import.meta.url).href)};
    const resident = () => process.memoryUsage().rss / 1048576;
    let kept = [];
    for (let index = 0; index < 2_000_000; index++) kept.push({ index, text: 'x' + index, pair: [index, index] });
    kept = null;
    // Enough short-lived objects after the drop for V8's own collections to free the dropped ones.
    for (let round = 0; round < 10; round++) new Array(1_000_000).fill(round).map((value) => ({ value }));
    const before = resident();
    if (${JSON.stringify(release)} === 'grown by 64 MiB') releaseFreedMemoryIfGrown(64 * 1024 * 1024);
    if (${JSON.stringify(release)} === 'grown by 64 GiB') releaseFreedMemoryIfGrown(64 * 1024 ** 3);
    if (${JSON.stringify(release)} === 'when idle, but busy') {
      // One piece of work ended (the quiet time starts), another is still under way when it has passed.
      const during = releaseWhenIdle(200);
      during(() => {});
      during(() => new Promise(() => {}));
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    if (${JSON.stringify(release)} === 'when idle') {
      const during = releaseWhenIdle(200);
      during(() => {});
      await during(() => new Promise((resolve) => setTimeout(resolve, 50)));
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    console.log(JSON.stringify({ before, after: resident() }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as { before: number; after: number };
}

describe('releasing the memory a thread freed (src/lib/release-memory.ts)', () => {
  it('gives the freed pages back once the thread has been idle, not while work is under way; without it they stay resident', async () => {
    const [none, whenIdle, busy] = await Promise.all(
      (['none', 'when idle', 'when idle, but busy'] as const).map((release) => residentAfterDroppingGarbage(release)),
    );
    expect(none.before).toBeGreaterThan(250);
    expect(none.after).toBeGreaterThan(none.before - 30);
    expect(whenIdle.after).toBeLessThan(whenIdle.before - 150);
    // Work under way (a task that awaits) is not idleness.
    expect(busy.after).toBeGreaterThan(busy.before - 100);
  }, 60_000);

  it('gives them back when the process has grown by the amount asked since the thread started, and not before', async () => {
    const [grown, notYet] = await Promise.all([residentAfterDroppingGarbage('grown by 64 MiB'), residentAfterDroppingGarbage('grown by 64 GiB')]);
    expect(grown.after).toBeLessThan(grown.before - 150);
    expect(notYet.after).toBeGreaterThan(notYet.before - 30);
  }, 60_000);

  it('leaves a process started with --expose-gc as it was: contexts made afterwards still have gc', async () => {
    const script = `
      import { runInNewContext } from 'node:vm';
      import { releaseWhenIdle } from ${JSON.stringify(new URL('../../src/lib/release-memory.ts', import.meta.url).href)};
      const during = releaseWhenIdle(10);
      during(() => {});
      await new Promise((resolve) => setTimeout(resolve, 200));
      console.log(runInNewContext('typeof gc'));
    `;
    const { stdout } = await run(process.execPath, ['--expose-gc', '--input-type=module', '-e', script]);
    expect(stdout.trim()).toBe('function');
  });
});
