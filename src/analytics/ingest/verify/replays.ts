/**
 * Web Bot Auth replays. A signature proves who made it, not who sends it: a signed request copied
 * from a log or a capture and sent again by someone else before the signature expires would verify
 * again. So every signature that verifies is remembered with the visitor who first presented it and
 * the path it was for, until it expires (a week at most). The same signature from another visitor, or
 * for another path, is a replay: it does not verify, and the view keeps what its IP ranges said. The
 * same visitor presenting it for the same path is the same request seen twice (captured by two
 * sources, or sent again after a lost answer) and still verifies.
 *
 * The first presenter is decided by the database (an insert that keeps the first row), so processes
 * side by side agree on it.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.ts';
import type { Verification } from '../../model/verification.ts';
import type { PreparedEvent } from '../../model/prepared-event.ts';
import { visitorHash } from '../visitor-hash.ts';

/** An event whose signature verified, and the verification it had before (from its IP ranges). */
export interface SignatureVerified {
  event: PreparedEvent;
  before: Verification;
}

const maxRememberMs = 7 * 86_400_000;
const sweepEveryMs = 60_000;
const sliceSize = 500;
let lastSweep = 0;

/** When a signature stops being remembered: its `expires` parameter, capped at a week from `now`. */
function rememberUntil(signatureInput: string | undefined, now: number): number {
  const expires = /;\s*expires=(\d+)/.exec(signatureInput ?? '');
  return Math.min(expires ? Number(expires[1]) * 1000 : Infinity, now + maxRememberMs);
}

const signatureHash = (signature: string) => createHash('sha256').update(signature).digest('base64url').slice(0, 22);

/** Takes back the verification of the events in `verified` that replay a signature another visitor or path presented first. */
export async function refuseReplays(db: Kysely<Database>, projectKey: number, secret: string, verified: SignatureVerified[], now = Date.now()): Promise<void> {
  if (verified.length === 0) return;
  if (now - lastSweep >= sweepEveryMs) {
    lastSweep = now;
    await db.deleteFrom('analytics_signatures_seen').where('expires_at', '<', now).execute();
  }
  const presented = verified.map(({ event, before }) => ({
    event,
    before,
    row: {
      project_key: projectKey,
      signature_hash: signatureHash(event.signed!.headers.signature!),
      visitor_hash: event.visitorHash ?? visitorHash(secret, event.visitorKey),
      path: event.signed!.path,
      expires_at: rememberUntil(event.signed!.headers['signature-input'], now),
    },
  }));
  const first: { signature_hash: string; visitor_hash: string; path: string }[] = [];
  // In slices, so a batch of signed events stays within SQLite's limit on parameters.
  for (let start = 0; start < presented.length; start += sliceSize) {
    const rows = presented.slice(start, start + sliceSize).map(({ row }) => row);
    await db
      .insertInto('analytics_signatures_seen')
      .values(rows)
      .onConflict((conflict) => conflict.columns(['project_key', 'signature_hash']).doNothing())
      .execute();
    first.push(
      ...(await db
        .selectFrom('analytics_signatures_seen')
        .select(['signature_hash', 'visitor_hash', 'path'])
        .where('project_key', '=', projectKey)
        .where(
          'signature_hash',
          'in',
          rows.map((row) => row.signature_hash),
        )
        .execute()),
    );
  }
  const presenters = new Map(first.map((row) => [row.signature_hash, row]));
  for (const { event, before, row } of presented) {
    const presenter = presenters.get(row.signature_hash);
    if (presenter && (presenter.visitor_hash !== row.visitor_hash || presenter.path !== row.path)) event.verification = before;
  }
}
