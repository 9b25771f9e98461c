import { afterEach, describe, expect, it, vi } from 'vitest';
import { runEvery } from '../../src/lib/run-every.ts';

afterEach(() => vi.useRealTimers());

describe('runEvery', () => {
  it('runs at once and then every period, one run at a time, and a failed run does not end the rounds', async () => {
    vi.useFakeTimers();
    const events: string[] = [];
    let calls = 0;
    let release: (() => void) | undefined;
    const errors: unknown[] = [];
    const rounds = runEvery(
      1000,
      async () => {
        const call = ++calls;
        events.push(`start ${call}`);
        if (call === 2) throw new Error('second round failed');
        // The third run lasts past the next period: the fourth must wait for it.
        if (call === 3) await new Promise<void>((resolve) => (release = resolve));
        events.push(`end ${call}`);
      },
      (error) => errors.push(error),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(events).toEqual(['start 1', 'end 1']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(errors).toEqual([new Error('second round failed')]);
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(events).toEqual(['start 1', 'end 1', 'start 2', 'start 3']);
    release!();
    await vi.advanceTimersByTimeAsync(0);
    expect(events).toEqual(['start 1', 'end 1', 'start 2', 'start 3', 'end 3', 'start 4', 'end 4']);
    await rounds.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toBe(4);
  });

  it('stop waits for the run under way', async () => {
    let finished = false;
    const rounds = runEvery(
      60_000,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        finished = true;
      },
      () => {},
    );
    await rounds.stop();
    expect(finished).toBe(true);
  });
});
