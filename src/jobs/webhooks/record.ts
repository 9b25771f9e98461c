import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { ClaimedDelivery } from './claim.ts';
import type { AttemptOutcome } from './send.ts';

export interface RetryPolicy {
  /** A delivery is retried this long after its event (or its manual redelivery), then failed. */
  retryWindowMs: number;
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterMs: number;
  /** Delay before the first retry; each further one doubles it, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/** Delay before the attempt after `attempt`: exponential, capped, with "full jitter" in its upper half so failed endpoints are not hit in step. */
export function retryDelay(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

const hours = (ms: number) => `${Math.round((ms / 3_600_000) * 10) / 10} h`;

function failureText(outcome: AttemptOutcome): string {
  return outcome.statusCode === null ? (outcome.error ?? 'no answer') : `HTTP ${outcome.statusCode}`;
}

/** A finished attempt, waiting to be recorded. */
export interface FinishedAttempt {
  claim: ClaimedDelivery;
  outcome: AttemptOutcome;
  startedAt: number;
}

/**
 * Records finished attempts of deliveries this loop holds, in one transaction (one commit, one sync
 * to disk, for many attempts). Each attempt joins the log, and its delivery becomes delivered (2xx),
 * due again after a backoff, or failed when its retry window has passed; the endpoint's failing
 * streak is ended or extended, and an endpoint failing for longer than the policy allows is disabled
 * with the reason. An attempt whose lease was lost (another process has the delivery now) is not
 * recorded; returns how many were.
 */
export async function recordAttempts(
  db: Kysely<Database>,
  loopId: string,
  attempts: FinishedAttempt[],
  policy: RetryPolicy,
  now = Date.now(),
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let recorded = 0;
    for (const attempt of attempts) if (await recordAttempt(trx, loopId, attempt, policy, now)) recorded += 1;
    return recorded;
  });
}

async function recordAttempt(
  trx: Kysely<Database>,
  loopId: string,
  { claim, outcome, startedAt }: FinishedAttempt,
  policy: RetryPolicy,
  now: number,
): Promise<boolean> {
  const delivery = await trx
    .selectFrom('webhook_deliveries')
    .select('retrying_since')
    .where('id', '=', claim.id)
    .where('locked_by', '=', loopId)
    .where('attempts', '=', claim.attempt)
    .executeTakeFirst();
  if (!delivery) return false;
  const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const error = delivered ? null : (outcome.error ?? `The endpoint answered HTTP ${outcome.statusCode}; only a 2xx answer counts as delivered.`);
  await trx
    .insertInto('webhook_attempts')
    .values({
      delivery_id: claim.id,
      attempt: claim.attempt,
      started_at: startedAt,
      status_code: outcome.statusCode,
      duration_ms: outcome.durationMs,
      error,
      response_excerpt: outcome.excerpt,
      sent_by: loopId,
    })
    .execute();
  // No attempt is scheduled past the window: the last failure inside it fails the delivery.
  const nextAttemptAt = now + retryDelay(policy, claim.attempt);
  const givingUp = !delivered && nextAttemptAt > delivery.retrying_since + policy.retryWindowMs;
  await trx
    .updateTable('webhook_deliveries')
    .set({
      status: delivered ? 'delivered' : givingUp ? 'failed' : 'pending',
      next_attempt_at: delivered || givingUp ? null : nextAttemptAt,
      locked_by: null,
      locked_until: null,
      last_status_code: outcome.statusCode,
      last_attempt_at: startedAt,
    })
    .where('id', '=', claim.id)
    .execute();
  if (delivered) {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', claim.endpoint.id)
      .where('failing_since', 'is not', null)
      .execute();
    return true;
  }
  const endpoint = await trx.selectFrom('webhook_endpoints').select(['failing_since', 'disabled_at']).where('id', '=', claim.endpoint.id).executeTakeFirst();
  if (!endpoint) return true;
  if (endpoint.disabled_at !== null) {
    // Disabled while this attempt was in flight: parked like the endpoint's other deliveries.
    if (!givingUp) await trx.updateTable('webhook_deliveries').set({ next_attempt_at: null }).where('id', '=', claim.id).execute();
    return true;
  }
  const failingSince = endpoint.failing_since ?? startedAt;
  const disable = now - failingSince >= policy.disableAfterMs;
  await trx
    .updateTable('webhook_endpoints')
    .set({
      failing_since: failingSince,
      ...(disable
        ? {
            disabled_at: now,
            disabled_reason: `Every delivery attempt failed for ${hours(now - failingSince)} (since ${new Date(failingSince).toISOString()}; the last one: ${failureText(outcome)}). Fix the endpoint, then turn it on again with PATCH {"enabled": true}; deliveries still pending resume then.`,
            updated_at: now,
          }
        : {}),
    })
    .where('id', '=', claim.endpoint.id)
    .execute();
  if (disable) await parkDeliveries(trx, claim.endpoint.id);
  return true;
}

/** Takes a disabled endpoint's pending deliveries off the schedule (enabling it puts them back), so claims never wade through them. */
export async function parkDeliveries(trx: Kysely<Database>, endpointId: string): Promise<void> {
  await trx.updateTable('webhook_deliveries').set({ next_attempt_at: null }).where('endpoint_id', '=', endpointId).where('status', '=', 'pending').execute();
}
