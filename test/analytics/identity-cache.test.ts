import { describe, expect, it } from 'vitest';
import { IdentityCache } from '../../src/analytics/ingest/identity-cache.ts';

describe('identity cache', () => {
  it('keys visitors by tracker id, else by user agent and IP address, per project', () => {
    const cache = new IdentityCache();
    cache.set(1, { visitorId: 'abc' }, 7, 10);
    cache.set(1, { ip: '203.0.113.5' }, 7, 11);
    expect(cache.get(1, { visitorId: 'abc', ip: '198.51.100.1' }, 9)).toBe(10);
    expect(cache.get(1, { ip: '203.0.113.5' }, 7)).toBe(11);
    // Another user agent at the same address is another visitor; another project knows nobody.
    expect(cache.get(1, { ip: '203.0.113.5' }, 8)).toBeUndefined();
    expect(cache.get(2, { visitorId: 'abc' }, 7)).toBeUndefined();
    // An IP address that happens to equal a tracker id is not that visitor.
    expect(cache.get(1, { ip: 'abc' }, 7)).toBeUndefined();
  });

  it('starts over when it holds `limit` visitors', () => {
    const cache = new IdentityCache(2);
    cache.set(1, { visitorId: 'a' }, 1, 1);
    cache.set(2, { visitorId: 'b' }, 1, 2);
    cache.set(1, { visitorId: 'c' }, 1, 3);
    expect([cache.get(1, { visitorId: 'a' }, 1), cache.get(2, { visitorId: 'b' }, 1), cache.get(1, { visitorId: 'c' }, 1)]).toEqual([undefined, undefined, 3]);
  });

  it('adds a key only when it is not there, keeping the id it had, and counts it toward `limit`', () => {
    const cache = new IdentityCache(2);
    expect(cache.add(1, { ip: '203.0.113.5' }, 7, 11)).toBe(true);
    expect(cache.add(1, { ip: '203.0.113.5' }, 7, 12)).toBe(false);
    expect(cache.get(1, { ip: '203.0.113.5' }, 7)).toBe(11);
    expect(cache.add(1, { ip: '203.0.113.5' }, 8, 13)).toBe(true);
    // Two keys held: the third starts the cache over.
    expect(cache.add(1, { visitorId: 'c' }, 1, 14)).toBe(true);
    expect(cache.get(1, { ip: '203.0.113.5' }, 7)).toBeUndefined();
  });

  it('finds every one of many visitors after its tables have grown, and none it was not given', () => {
    const cache = new IdentityCache();
    const key = (index: number) => (index % 3 === 0 ? { ip: `10.${index >> 16}.${(index >> 8) & 255}.${index & 255}` } : { visitorId: `visitor-${index}` });
    for (let index = 0; index < 60_000; index++) cache.set(1 + (index % 2), key(index), index % 5, index);
    const found = Array.from({ length: 60_000 }, (_, index) => cache.get(1 + (index % 2), key(index), index % 5));
    expect(found.every((visitorId, index) => visitorId === index)).toBe(true);
    const absent = Array.from({ length: 60_000 }, (_, index) => cache.get(1 + (index % 2), key(index + 60_000), index % 5));
    expect(absent.filter((visitorId) => visitorId !== undefined)).toEqual([]);
  });

  it('forgets that it held every visitor of a project once it starts over, even mid-write', () => {
    const cache = new IdentityCache(3);
    const before = cache.generation;
    cache.markComplete(1, 10, before);
    expect(cache.completeAt(1)).toBe(10);
    for (const visitor of ['a', 'b', 'c', 'd']) cache.set(1, { visitorId: visitor }, 1, 1);
    expect(cache.completeAt(1)).toBeUndefined();
    // A write that began before the cache started over cannot record it as complete.
    cache.markComplete(1, 14, before);
    expect(cache.completeAt(1)).toBeUndefined();
  });
});
