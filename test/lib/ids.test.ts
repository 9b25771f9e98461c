import { afterEach, describe, expect, it, vi } from 'vitest';
import { isId, newId } from '../../src/lib/ids.ts';

describe('ids', () => {
  it('are well-formed, distinct and in creation order across many refills of their random bytes', () => {
    // 16 random characters per id and 4,096 bytes per refill: 2,000 ids draw the pool about eight times over.
    const ids = Array.from({ length: 2000 }, () => newId('job'));
    expect(ids.every((id) => isId(id, 'job'))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('spread their random characters over the whole alphabet', () => {
    // Within one millisecond a monotonic id increments the one before; a new millisecond draws its 16 characters afresh.
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now() + 1000;
    const seen = new Map<string, number>();
    for (let round = 0; round < 400; round++) {
      vi.setSystemTime(start + round);
      for (const character of newId('msg').slice(-16)) seen.set(character, (seen.get(character) ?? 0) + 1);
    }
    expect(seen.size).toBe(32);
    // 6,400 characters over 32 symbols: 200 each on average; a skewed mapping of bytes to characters would leave some far below.
    expect(Math.min(...seen.values())).toBeGreaterThan(130);
  });
});
