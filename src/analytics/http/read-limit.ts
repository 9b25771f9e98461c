import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { rateLimited, rateLimitHeaders, takeRateLimitsCommitted } from '../../http/rate-limit.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

/**
 * Takes one request from the organization's analytics budget, shared by every analytics read operation,
 * counted once committed, not once flushed (takeRateLimitsCommitted): a flush per read would take longer than most queries.
 */
export async function limitReads(context: AppContext, project: ProjectRow, reply: FastifyReply): Promise<void> {
  const { config, storage } = context;
  const rule = { limit: config.analyticsRateLimit, windowMs: config.analyticsRateWindowSeconds * 1000 };
  const [[state]] = await takeRateLimitsCommitted(storage, [[{ bucket: `analytics:${project.org_id}`, rule }]]);
  if (!state.allowed) {
    throw rateLimited(state, `This organization has used its ${rule.limit} analytics requests for the last ${config.analyticsRateWindowSeconds / 60} minutes.`);
  }
  reply.headers(rateLimitHeaders(state));
}
