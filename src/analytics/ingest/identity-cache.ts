/** What of a visitor key (visitor-identity.ts) the cache reads; the user agent comes as its dense id. */
interface VisitorKey {
  visitorId?: string;
  ip?: string;
}

/** One project's visitor ids: by the tracker's id, else by the user agent's dense id and then the IP address. */
interface ProjectIdentities {
  byVisitorId: Map<string, number>;
  byAddress: Map<number, Map<string, number>>;
}

/**
 * Visitor ids of visitor keys, per project, in memory: a returning visitor costs a map lookup instead
 * of an HMAC and a query. The maps are keyed by the event's own strings, not by a key built per event:
 * a short string parsed from JSON is shared by every event that holds it, so a lookup finds its hash
 * already computed and compares references, where a built key would be hashed and compared by content.
 * Bounded (about 70 bytes an entry): at `limit` entries every project starts over; a miss costs an HMAC
 * and one indexed lookup.
 */
export class IdentityCache {
  readonly #projects = new Map<number, ProjectIdentities>();
  #count = 0;
  readonly limit: number;

  constructor(limit = 1_500_000) {
    this.limit = limit;
  }

  /** The visitor id cached for `key` in project `projectKey`, whose user agent has id `agentId`. */
  get(projectKey: number, key: VisitorKey, agentId: number): number | undefined {
    const project = this.#projects.get(projectKey);
    if (project === undefined) return undefined;
    if (key.visitorId !== undefined) return project.byVisitorId.get(key.visitorId);
    return project.byAddress.get(agentId)?.get(key.ip ?? '');
  }

  set(projectKey: number, key: VisitorKey, agentId: number, visitorId: number): void {
    if (this.#count >= this.limit) this.clear();
    let project = this.#projects.get(projectKey);
    if (project === undefined) this.#projects.set(projectKey, (project = { byVisitorId: new Map(), byAddress: new Map() }));
    this.#count++;
    if (key.visitorId !== undefined) {
      project.byVisitorId.set(key.visitorId, visitorId);
      return;
    }
    let addresses = project.byAddress.get(agentId);
    if (addresses === undefined) project.byAddress.set(agentId, (addresses = new Map()));
    addresses.set(key.ip ?? '', visitorId);
  }

  clear(): void {
    this.#projects.clear();
    this.#count = 0;
  }
}
