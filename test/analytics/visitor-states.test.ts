import { describe, expect, it } from 'vitest';
import { VisitorStates } from '../../src/analytics/ingest/dimensions/visitor-states.ts';

/** A seeded generator, so a failure repeats. */
function random(seed: number) {
  return () => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    return ((seed ^ (seed >>> 14)) >>> 0) / 2 ** 32;
  };
}

type State = { lastAt: number; source: number | null; certain: boolean };

function expectSame(states: VisitorStates, reference: Map<number, State>, ids: number[]) {
  expect(states.size).toBe(reference.size);
  for (const id of ids) {
    const slot = states.find(id);
    const expected = reference.get(id);
    if (expected === undefined) {
      expect(slot).toBe(-1);
      continue;
    }
    expect(slot).not.toBe(-1);
    expect({ lastAt: states.lastAt(slot), source: states.source(slot), certain: states.certain(slot) }).toEqual(expected);
  }
}

describe('visitor states in typed arrays', () => {
  it('holds what a map holds through adds, updates, growth and pruning, clustered ids and large ones included', () => {
    const next = random(7);
    const states = new VisitorStates(16);
    const reference = new Map<number, State>();
    // Dense ids as ingestion gives them, a few far beyond 2^32 (their hashes wrap), and a cluster that collides.
    const ids = [...Array.from({ length: 3000 }, (_, index) => index + 1), 2 ** 40 + 5, 2 ** 33, 2 ** 32 + 1, 1 + 2 ** 32 * 3];
    let now = 0;
    for (let round = 0; round < 40; round++) {
      for (let step = 0; step < 400; step++) {
        now += 1 + Math.floor(next() * 20);
        const id = ids[Math.floor(next() * ids.length)];
        const slot = states.find(id);
        const source = next() < 0.3 ? null : Math.floor(next() * 50);
        const certain = next() < 0.5;
        if (slot === -1) {
          states.add(id, now, source, certain);
          reference.set(id, { lastAt: now, source, certain });
        } else if (next() < 0.5) {
          states.set(slot, now, source, certain);
          reference.set(id, { lastAt: now, source, certain });
        } else {
          states.setLastAt(slot, now);
          states.setUncertain(slot);
          reference.set(id, { ...reference.get(id)!, lastAt: now, certain: false });
        }
      }
      expectSame(states, reference, ids);
      if (round % 4 === 3) {
        const cut = now - 2000;
        states.dropBefore(cut);
        for (const [id, state] of reference) if (state.lastAt < cut) reference.delete(id);
        expectSame(states, reference, ids);
      }
    }
    expect(reference.size).toBeGreaterThan(100);
  });

  it('keeps every visitor reachable when pruning a small, crowded table, clusters wrapping past its end', () => {
    const next = random(11);
    const states = new VisitorStates(16);
    const reference = new Map<number, State>();
    const ids = Array.from({ length: 64 }, (_, index) => index * 7 + 1);
    for (let now = 1; now < 6_000; now++) {
      const id = ids[Math.floor(next() * ids.length)];
      if (reference.size < 7 && !reference.has(id)) {
        states.add(id, now, null, true);
        reference.set(id, { lastAt: now, source: null, certain: true });
      }
      if (now % 5 === 0) {
        const cut = now - Math.floor(next() * 40);
        states.dropBefore(cut);
        for (const [held, state] of reference) if (state.lastAt < cut) reference.delete(held);
        expectSame(states, reference, ids);
      }
    }
  });

  it('empties a full wrap-around cluster and takes visitors again', () => {
    const states = new VisitorStates(16);
    for (let id = 1; id <= 8; id++) states.add(id, id, id, true);
    states.dropBefore(5);
    expect(states.size).toBe(4);
    for (let id = 1; id <= 8; id++) expect(states.find(id) === -1).toBe(id < 5);
    states.dropBefore(100);
    expect(states.size).toBe(0);
    states.add(3, 10, null, false);
    expect(states.source(states.find(3))).toBeNull();
  });
});
