import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { rateLimited, rateLimitHeaders, takeRateLimit } from '../../http/rate-limit.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

/**
 * Takes one request from the organization's analytics budget, shared by every analytics read operation.
 * The hit is counted once committed, without waiting for the disk (on SQLite, a flush of the log per
 * read: 2 ms at the median and tens of milliseconds while the disk is busy, longer than most queries):
 * a crash may forget the last reads' hits, which only lets a client read that many more times.
 */
export async function limitReads(context: AppContext, project: ProjectRow, reply: FastifyReply): Promise<void> {
  const { config, storage } = context;
  const rule = { limit: config.analyticsRateLimit, windowMs: config.analyticsRateWindowSeconds * 1000 };
  const { value: state } = await storage.deferDurability(() =>
    storage.db.transaction().execute((trx) => takeRateLimit(trx, storage.profile, `analytics:${project.org_id}`, rule)),
  );
  if (!state.allowed) {
    throw rateLimited(state, `This organization has used its ${rule.limit} analytics requests for the last ${config.analyticsRateWindowSeconds / 60} minutes.`);
  }
  reply.headers(rateLimitHeaders(state));
}
