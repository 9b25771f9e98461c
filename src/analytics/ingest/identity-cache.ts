/** What of a visitor key (visitor-identity.ts) the cache reads; the user agent comes as its dense id. */
interface VisitorKey {
  visitorId?: string;
  ip?: string;
}

/**
 * 64 bits of an identity, as two 32-bit lanes computed in one pass over its characters (murmur-style
 * mixing): the tracker's id, else the user agent's dense id and the IP address. The second lane is
 * odd, so a zero marks an empty slot.
 */
let laneA = 0;
let laneB = 0;
function hashIdentity(key: VisitorKey, agentId: number): void {
  let a = 0x9747b28c;
  let b = 0x85ebca6b;
  const text = key.visitorId ?? key.ip ?? '';
  // The kind, and for an address the agent, go in first: an IP address equal to a tracker id is another key.
  const seed = key.visitorId !== undefined ? -1 : agentId;
  a = Math.imul(a ^ seed, 0x5bd1e995);
  b = Math.imul(b ^ seed, 0xcc9e2d51);
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x5bd1e995);
    a ^= a >>> 15;
    b = Math.imul(b ^ code, 0xcc9e2d51);
    b ^= b >>> 13;
  }
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b);
  laneA = (a ^ (a >>> 16)) >>> 0;
  laneB = ((b ^ (b >>> 13)) | 1) >>> 0;
}

/** One project's identities: open addressing with linear probing over typed arrays, doubled at half full. */
class IdentityTable {
  lanesA = new Uint32Array(1024);
  lanesB = new Uint32Array(1024);
  visitorIds = new Float64Array(1024);
  size = 0;

  /** The slot of the current lanes: theirs, or the empty one where they would go. */
  slot(): number {
    const mask = this.lanesA.length - 1;
    let index = laneA & mask;
    while (this.lanesB[index] !== 0 && (this.lanesA[index] !== laneA || this.lanesB[index] !== laneB)) index = (index + 1) & mask;
    return index;
  }

  /** Stores the current lanes' visitor id; answers whether they were new. */
  put(visitorId: number): boolean {
    const index = this.slot();
    const fresh = this.lanesB[index] === 0;
    if (fresh) {
      this.size++;
      this.lanesA[index] = laneA;
      this.lanesB[index] = laneB;
    }
    this.visitorIds[index] = visitorId;
    if (this.size * 2 > this.lanesA.length) this.#grow();
    return fresh;
  }

  #grow(): void {
    const { lanesA, lanesB, visitorIds } = this;
    this.lanesA = new Uint32Array(lanesA.length * 2);
    this.lanesB = new Uint32Array(lanesA.length * 2);
    this.visitorIds = new Float64Array(lanesA.length * 2);
    const [savedA, savedB] = [laneA, laneB];
    for (let index = 0; index < lanesA.length; index++) {
      if (lanesB[index] === 0) continue;
      laneA = lanesA[index];
      laneB = lanesB[index];
      const slot = this.slot();
      this.lanesA[slot] = laneA;
      this.lanesB[slot] = laneB;
      this.visitorIds[slot] = visitorIds[index];
    }
    [laneA, laneB] = [savedA, savedB];
  }
}

/**
 * Visitor ids of visitor keys, per project, in memory: a returning visitor costs one probe of a typed
 * array instead of an HMAC and a query. Keys are 64-bit hashes of the identity rather than strings: a
 * map of a million strings costs a lookup several cache misses (hash, entry, the stored string to
 * compare), about three times a probe here. Two visitors share a hash once in about 10^13 lookups of a
 * full cache, and would then count as one. Bounded (16 bytes a slot, at most half full): at `limit`
 * entries every project starts over; a miss costs an HMAC and one indexed lookup.
 */
export class IdentityCache {
  readonly #projects = new Map<number, IdentityTable>();
  /** Per project, the visitor counter at which this cache held every visitor of the project. */
  readonly #complete = new Map<number, number>();
  #count = 0;
  #generation = 0;
  readonly limit: number;

  constructor(limit = 1_500_000) {
    this.limit = limit;
  }

  /** The visitor id cached for `key` in project `projectKey`, whose user agent has id `agentId`. */
  get(projectKey: number, key: VisitorKey, agentId: number): number | undefined {
    const table = this.#projects.get(projectKey);
    if (table === undefined) return undefined;
    hashIdentity(key, agentId);
    const slot = table.slot();
    return table.lanesB[slot] === 0 ? undefined : table.visitorIds[slot];
  }

  set(projectKey: number, key: VisitorKey, agentId: number, visitorId: number): void {
    if (this.#table(projectKey, key, agentId).put(visitorId)) this.#count++;
  }

  /** Caches `key` unless it is there (one hash and probe either way); answers whether it was new. */
  add(projectKey: number, key: VisitorKey, agentId: number, visitorId: number): boolean {
    const table = this.#table(projectKey, key, agentId);
    if (table.lanesB[table.slot()] !== 0) return false;
    table.put(visitorId);
    this.#count++;
    return true;
  }

  /** The project's table, with the key's lanes computed; the cache starts over at `limit`. */
  #table(projectKey: number, key: VisitorKey, agentId: number): IdentityTable {
    if (this.#count >= this.limit) this.clear();
    let table = this.#projects.get(projectKey);
    if (table === undefined) this.#projects.set(projectKey, (table = new IdentityTable()));
    hashIdentity(key, agentId);
    return table;
  }

  /**
   * The project's visitor counter (`next_visitor`) at which this cache holds every visitor of the
   * project, so a key it misses is a new visitor; undefined unless recorded.
   */
  completeAt(projectKey: number): number | undefined {
    return this.#complete.get(projectKey);
  }

  /** Changes whenever the cache starts over. */
  get generation(): number {
    return this.#generation;
  }

  /** Records `completeAt`, unless the cache started over since `generation` (it then lost visitors). */
  markComplete(projectKey: number, counter: number, generation: number): void {
    if (generation === this.#generation) this.#complete.set(projectKey, counter);
  }

  clear(): void {
    this.#projects.clear();
    this.#complete.clear();
    this.#count = 0;
    this.#generation++;
  }
}
