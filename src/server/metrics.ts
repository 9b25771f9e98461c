import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../http/context.ts';
import { ApiError } from '../http/errors.ts';
import type { IngestSource } from '../analytics/ingest/ingested.ts';
import { turnFailures, type TurnFailure } from '../docs/assistant/failures.ts';
import { registerDatabaseGauges } from './metrics-database.ts';

/** Equal texts in time that does not depend on where they differ (digests first, so lengths may differ too). */
function sameToken(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function checkToken(request: FastifyRequest, expected: string): void {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match || !sameToken(match[1], expected)) {
    throw new ApiError('unauthorized', 'Send the metrics token (QUIRE_METRICS_TOKEN) in the Authorization header: "Authorization: Bearer <token>".', {
      headers: { 'www-authenticate': 'Bearer realm="quire-metrics"' },
    });
  }
}

/**
 * `GET /metrics` in the Prometheus text format, behind QUIRE_METRICS_TOKEN (404 without it). Each app
 * has its own registry, so several apps in one process (tests) keep their counts apart. Counters are
 * this process's; gauges of jobs, queue and webhooks are read from the database at each scrape.
 * Called before any route is added, so its hook sees every request.
 */
export function installMetrics(app: FastifyInstance, context: AppContext): void {
  const token = context.config.metricsToken;
  if (!token) {
    app.get('/metrics', { schema: { hide: true } }, async () => {
      throw new ApiError('not_found', 'There is no GET /metrics operation: metrics are off until QUIRE_METRICS_TOKEN is set.');
    });
    return;
  }

  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'quire_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const durations = new Histogram({
    name: 'quire_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const ingested = new Counter({
    name: 'quire_ingest_events_total',
    help: 'Analytics events received by this process, by source (api, tracker, drain) and outcome (accepted, rejected).',
    labelNames: ['source', 'outcome'],
    registers,
  });
  // Every series from the first scrape on, so rates start at 0 rather than at the first event.
  for (const source of ['api', 'tracker', 'drain'] satisfies IngestSource[]) {
    for (const outcome of ['accepted', 'rejected']) ingested.inc({ source, outcome }, 0);
  }
  const assistantFailures = new Counter({
    name: 'quire_assistant_turns_failed_total',
    help: 'Assistant answers that ended without an answer, by reason (step-limit, token-limit, time-limit, provider, aborted, internal).',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of turnFailures) assistantFailures.inc({ reason }, 0);
  registerDatabaseGauges(registry, context.storage);

  app.addHook('onResponse', async (request, reply) => {
    // The pattern (`/v2/agent/:projectId/job/:id`), never the address: ids would make a series per job.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    durations.observe(labels, reply.elapsedTime / 1000);
  });
  const onIngested = (source: IngestSource, accepted: number, rejected: number) => {
    if (accepted > 0) ingested.inc({ source, outcome: 'accepted' }, accepted);
    if (rejected > 0) ingested.inc({ source, outcome: 'rejected' }, rejected);
  };
  const onAssistantFailure = (reason: TurnFailure) => assistantFailures.inc({ reason });
  context.events.on('events-ingested', onIngested);
  context.events.on('assistant-turn-failed', onAssistantFailure);
  app.addHook('onClose', async () => {
    context.events.off('events-ingested', onIngested);
    context.events.off('assistant-turn-failed', onAssistantFailure);
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    checkToken(request, token);
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(text);
  });
}
