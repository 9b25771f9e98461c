import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../src/lib/answer-cache.ts';

describe('the search answer cache', () => {
  it('keeps the most recently used answers within its count', () => {
    const cache = new AnswerCache<string>((value) => value.length, { entries: 2, characters: 100 });
    cache.set('a', 'first');
    cache.set('b', 'second');
    expect(cache.get('a')).toBe('first');
    cache.set('c', 'third');
    // "b" was the least recently used: "a" was read after it was written.
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('first');
    expect(cache.get('c')).toBe('third');
    expect(cache.size).toBe(2);
  });

  it('keeps no more characters than its bound, and never an answer larger than it', () => {
    const cache = new AnswerCache<string>((value) => value.length, { entries: 100, characters: 10 });
    cache.set('a', 'xxxx');
    cache.set('b', 'yyyy');
    cache.set('c', 'zzzz');
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c')]).toEqual(['yyyy', 'zzzz']);
    cache.set('huge', 'w'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('c')).toBe('zzzz');
    // Writing a key again replaces its answer and its size.
    cache.set('c', 'zz');
    cache.set('d', 'dddddd');
    expect([cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([undefined, 'zz', 'dddddd']);
  });
});
