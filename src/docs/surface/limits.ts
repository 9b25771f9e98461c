import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientAddressResolver, clientNetwork } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { rateLimited, rateLimitHeaders, takeRateLimit, type RateLimitRule } from '../../http/rate-limit.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

/** Takes one request from each bucket, in one transaction: a refused request uses up none of them. */
async function take(context: AppContext, reply: FastifyReply, buckets: { bucket: string; rule: RateLimitRule; what: string }[]): Promise<void> {
  const { storage } = context;
  await storage.db.transaction().execute(async (trx) => {
    let tightest: Record<string, string> = {};
    let fewest = Infinity;
    for (const { bucket, rule, what } of buckets) {
      const state = await takeRateLimit(trx, storage.profile, bucket, rule);
      if (!state.allowed) throw rateLimited(state, what);
      if (state.remaining < fewest) [fewest, tightest] = [state.remaining, rateLimitHeaders(state)];
    }
    reply.headers(tightest);
  });
}

/**
 * The limits of the docs features, exact across processes (the buckets are in the database):
 * discovery search and page per organization; the search MCP server per client address (an IPv6
 * /64 counts as one) and per project; assistant messages per organization and per client address.
 */
export function docsLimits(context: AppContext) {
  const { config } = context;
  const clientAddress = clientAddressResolver(config.trustedProxies);
  const window = (seconds: number) => `${seconds / 60} minutes`;
  return {
    discovery: (project: ProjectRow, reply: FastifyReply) =>
      take(context, reply, [
        {
          bucket: `discovery:${project.org_id}`,
          rule: { limit: config.discoveryRateLimit, windowMs: config.discoveryRateWindowSeconds * 1000 },
          what: `This organization has used its ${config.discoveryRateLimit} discovery requests for the last ${window(config.discoveryRateWindowSeconds)}.`,
        },
      ]),
    assistant: (project: ProjectRow, request: FastifyRequest, reply: FastifyReply) =>
      take(context, reply, [
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
    mcp: (project: ProjectRow, request: FastifyRequest, reply: FastifyReply) => {
      const windowMs = config.docsMcpRateWindowSeconds * 1000;
      const span = window(config.docsMcpRateWindowSeconds);
      return take(context, reply, [
        {
          bucket: `docs-mcp:address:${clientNetwork(clientAddress(request))}`,
          rule: { limit: config.docsMcpRateLimitPerAddress, windowMs },
          what: `This address has made its ${config.docsMcpRateLimitPerAddress} calls to docs MCP servers for the last ${span}.`,
        },
        {
          bucket: `docs-mcp:project:${project.id}`,
          rule: { limit: config.docsMcpRateLimitPerProject, windowMs },
          what: `This project's MCP server has answered its ${config.docsMcpRateLimitPerProject} calls for the last ${span}.`,
        },
      ]);
    },
  };
}
