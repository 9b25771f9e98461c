import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientAddressResolver, clientNetwork } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import {
  rateLimited,
  rateLimitHeaders,
  takeRateLimitsCommitted,
  type RateLimitRequest,
  type RateLimitRule,
  type RateLimitState,
} from '../../http/rate-limit.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

type LimitContext = Pick<AppContext, 'config' | 'storage'>;

/** Requests one transaction decides at most: each adds a hit row (two parameters) per bucket to one insert. */
const maxTurns = 250;

/**
 * The docs features' takes, one transaction at a time per database: a take that arrives while one
 * runs waits for the next, which decides all that waited in arrival order (takeRateLimitsInTurn), as
 * a database commits the writers that queued behind a commit together. Each request thus costs a
 * share of one transaction's statements, commit and log flush rather than all of them, and the
 * answers are those of the requests taken one by one in that order. A take with none before it runs
 * at once.
 */
class TakeQueue {
  readonly #storage: Storage;
  #waiting: { buckets: RateLimitRequest[]; resolve(states: RateLimitState[]): void; reject(error: unknown): void }[] = [];
  #running = false;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  take(buckets: RateLimitRequest[]): Promise<RateLimitState[]> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ buckets, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#waiting.length > 0) {
      const turns = this.#waiting.splice(0, maxTurns);
      try {
        // Answered once committed, not once flushed (takeRateLimitsCommitted): an assistant message's model call would wait for a flush.
        const states = await takeRateLimitsCommitted(
          this.#storage,
          turns.map((turn) => turn.buckets),
        );
        turns.forEach((turn, index) => turn.resolve(states[index]));
      } catch (error) {
        for (const turn of turns) turn.reject(error);
      }
    }
    this.#running = false;
  }
}

const queues = new WeakMap<Storage, TakeQueue>();

function queueOf(storage: Storage): TakeQueue {
  let queue = queues.get(storage);
  if (!queue) queues.set(storage, (queue = new TakeQueue(storage)));
  return queue;
}

/**
 * Takes one request from each bucket (a refused request uses up none of them). Gives the rate-limit
 * headers of the tightest bucket; a refusal throws the 429 error of the first bucket that refused.
 */
async function take(context: LimitContext, buckets: { bucket: string; rule: RateLimitRule; what: string }[]): Promise<Record<string, string>> {
  const states = await queueOf(context.storage).take(buckets);
  const refused = states.findIndex((state) => !state.allowed);
  if (refused >= 0) throw rateLimited(states[refused], buckets[refused].what);
  const tightest = states.reduce((fewest, state) => (state.remaining < fewest.remaining ? state : fewest));
  return rateLimitHeaders(tightest);
}

/**
 * The limits of the docs features, exact across processes (the buckets are in the database):
 * discovery search and page per organization; the search MCP server per client address (an IPv6
 * /64 counts as one) and per project; assistant messages per organization and per client address;
 * the site surface's recorded 404s per project, and per client address within each project.
 */
export function docsLimits(context: LimitContext) {
  const { config } = context;
  const clientAddress = clientAddressResolver(config.trustedProxies);
  const window = (seconds: number) => `${seconds / 60} minutes`;
  /** The MCP server's limits for a call from `address` (the proxy resolves addresses its own way). */
  const mcpCall = (project: ProjectRow, address: string | undefined) => {
    const windowMs = config.docsMcpRateWindowSeconds * 1000;
    const span = window(config.docsMcpRateWindowSeconds);
    return take(context, [
      {
        bucket: `docs-mcp:address:${clientNetwork(address)}`,
        rule: { limit: config.docsMcpRateLimitPerAddress, windowMs },
        what: `This address has made its ${config.docsMcpRateLimitPerAddress} calls to docs MCP servers for the last ${span}.`,
      },
      {
        bucket: `docs-mcp:project:${project.id}`,
        rule: { limit: config.docsMcpRateLimitPerProject, windowMs },
        what: `This project's MCP server has answered its ${config.docsMcpRateLimitPerProject} calls for the last ${span}.`,
      },
    ]);
  };
  return {
    discovery: async (project: ProjectRow, reply: FastifyReply) =>
      void reply.headers(
        await take(context, [
          {
            bucket: `discovery:${project.org_id}`,
            rule: { limit: config.discoveryRateLimit, windowMs: config.discoveryRateWindowSeconds * 1000 },
            what: `This organization has used its ${config.discoveryRateLimit} discovery requests for the last ${window(config.discoveryRateWindowSeconds)}.`,
          },
        ]),
      ),
    assistant: async (project: ProjectRow, request: FastifyRequest, reply: FastifyReply) =>
      void reply.headers(
        await take(context, [
          {
            bucket: `assistant:${project.org_id}`,
            rule: { limit: config.assistantRateLimit, windowMs: config.assistantRateWindowSeconds * 1000 },
            what: `This organization has used its ${config.assistantRateLimit} assistant messages for the last ${window(config.assistantRateWindowSeconds)}.`,
          },
          {
            bucket: `assistant:address:${clientNetwork(clientAddress(request))}`,
            rule: { limit: config.assistantRateLimitPerAddress, windowMs: config.assistantAddressWindowSeconds * 1000 },
            what: `This address has sent its ${config.assistantRateLimitPerAddress} assistant messages for the last ${window(config.assistantAddressWindowSeconds)}.`,
          },
        ]),
      ),
    mcp: async (project: ProjectRow, request: FastifyRequest, reply: FastifyReply) => void reply.headers(await mcpCall(project, clientAddress(request))),
    mcpCall,
    /**
     * Whether the site surface records this 404 of `project`: whoever asks chooses the missing paths, and
     * each one recorded grows the project's analytics and its docs gaps, so they are recorded up to the
     * project's budget, and a client's up to its own budget within that project. The per-address budget
     * alone bounds nothing (addresses are cheap: an IPv6 /48 holds 65,536 /64s), and one shared by every
     * project would let junk asked of one starve another's recording from the same address (NAT, hosted
     * fetchers). Never refuses the request, which is answered 404 either way; a failed take records nothing.
     */
    recordsNotFound: async (project: ProjectRow, request: FastifyRequest): Promise<boolean> => {
      const windowMs = config.docsNotFoundRecordWindowSeconds * 1000;
      const projectBucket = `docs-not-found:project:${project.id}`;
      try {
        const states = await queueOf(context.storage).take([
          // The address first: a client past its own budget takes nothing from the project's.
          {
            bucket: `${projectBucket}:address:${clientNetwork(clientAddress(request))}`,
            rule: { limit: config.docsNotFoundRecordLimitPerAddress, windowMs },
          },
          { bucket: projectBucket, rule: { limit: config.docsNotFoundRecordLimitPerProject, windowMs } },
        ]);
        return states.every((state) => state.allowed);
      } catch (error) {
        request.log.warn({ err: error }, 'the 404 limit could not be taken; the 404 is not recorded');
        return false;
      }
    },
  };
}
