/**
 * Each recent visitor's latest view as visits need it (visits.ts), in typed arrays: an open-addressing
 * table keyed by dense visitor id, linear probing, that grows by doubling and never shrinks.
 *
 * Why not a Map of objects: ingestion looks up every view's visitor here, and a project's map of up to
 * 100,000 visitors was pruned to a tenth and grew again every hundred batches or so. Each growth and
 * each shrink gave V8 a new table of over 128 KiB, which it maps afresh; on this kind of virtual machine
 * a first touch of a page costs about 10 µs, and those tables were two fifths of the event loop's page
 * faults during ingestion. Here pruning rehashes the survivors into the same arrays.
 */
const empty = -1;

export class VisitorStates {
  #keys: Float64Array;
  #lastAt: Float64Array;
  /** The visit's source (a referrer id), NaN for none. */
  #source: Float64Array;
  #certain: Uint8Array;
  #size = 0;
  #shift: number;

  constructor(capacity = 1024) {
    const bits = Math.max(4, Math.ceil(Math.log2(capacity)));
    this.#shift = 32 - bits;
    this.#keys = new Float64Array(1 << bits).fill(empty);
    this.#lastAt = new Float64Array(1 << bits);
    this.#source = new Float64Array(1 << bits);
    this.#certain = new Uint8Array(1 << bits);
  }

  get size(): number {
    return this.#size;
  }

  /** The slot of `visitor`, or -1 when it is not held. */
  find(visitor: number): number {
    const keys = this.#keys;
    const mask = keys.length - 1;
    for (let slot = Math.imul(visitor | 0, 0x9e3779b1) >>> this.#shift; ; slot = (slot + 1) & mask) {
      const key = keys[slot];
      if (key === visitor) return slot;
      if (key === empty) return -1;
    }
  }

  /** Holds `visitor` (not held yet) with its state; returns its slot. */
  add(visitor: number, lastAt: number, source: number | null, certain: boolean): number {
    if ((this.#size + 1) * 2 > this.#keys.length) this.#resize(this.#keys.length * 2);
    const slot = this.#place(visitor);
    this.#lastAt[slot] = lastAt;
    this.#source[slot] = source ?? Number.NaN;
    this.#certain[slot] = certain ? 1 : 0;
    this.#size++;
    return slot;
  }

  lastAt(slot: number): number {
    return this.#lastAt[slot];
  }

  source(slot: number): number | null {
    const source = this.#source[slot];
    return Number.isNaN(source) ? null : source;
  }

  certain(slot: number): boolean {
    return this.#certain[slot] === 1;
  }

  set(slot: number, lastAt: number, source: number | null, certain: boolean): void {
    this.#lastAt[slot] = lastAt;
    this.#source[slot] = source ?? Number.NaN;
    this.#certain[slot] = certain ? 1 : 0;
  }

  setLastAt(slot: number, lastAt: number): void {
    this.#lastAt[slot] = lastAt;
  }

  setUncertain(slot: number): void {
    this.#certain[slot] = 0;
  }

  /** Forgets every visitor whose latest view is before `cut`, in place: the arrays keep their size. */
  dropBefore(cut: number): void {
    const keys = this.#keys;
    for (let slot = 0; slot < keys.length;) {
      // A removal moves a later visitor into this slot: it is looked at again.
      if (keys[slot] !== empty && this.#lastAt[slot] < cut) this.#remove(slot);
      else slot++;
    }
  }

  /** Empties `slot`, moving back the visitors after it that probed past it (backward-shift deletion). */
  #remove(slot: number): void {
    const keys = this.#keys;
    const mask = keys.length - 1;
    let hole = slot;
    for (let next = (hole + 1) & mask; keys[next] !== empty; next = (next + 1) & mask) {
      const home = Math.imul(keys[next] | 0, 0x9e3779b1) >>> this.#shift;
      // A visitor whose home lies cyclically in (hole, next] is still reachable where it is.
      const staysPut = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (staysPut) continue;
      keys[hole] = keys[next];
      this.#lastAt[hole] = this.#lastAt[next];
      this.#source[hole] = this.#source[next];
      this.#certain[hole] = this.#certain[next];
      hole = next;
    }
    keys[hole] = empty;
    this.#size--;
  }

  /** Rehashes into arrays of `capacity` slots (growing). */
  #resize(capacity: number): void {
    const [keys, lastAt, source, certain] = [this.#keys, this.#lastAt, this.#source, this.#certain];
    this.#keys = new Float64Array(capacity).fill(empty);
    this.#lastAt = new Float64Array(capacity);
    this.#source = new Float64Array(capacity);
    this.#certain = new Uint8Array(capacity);
    this.#shift = 32 - Math.log2(capacity);
    for (let from = 0; from < keys.length; from++) {
      if (keys[from] === empty) continue;
      const slot = this.#place(keys[from]);
      this.#lastAt[slot] = lastAt[from];
      this.#source[slot] = source[from];
      this.#certain[slot] = certain[from];
    }
  }

  /** The free slot where `visitor` goes. */
  #place(visitor: number): number {
    const keys = this.#keys;
    const mask = keys.length - 1;
    let slot = Math.imul(visitor | 0, 0x9e3779b1) >>> this.#shift;
    while (keys[slot] !== empty) slot = (slot + 1) & mask;
    keys[slot] = visitor;
    return slot;
  }
}
