import { gapEvidence, type EvidenceRange, type EvidenceSender } from '../../analytics/feedback/gap-evidence.ts';
import type { AnalyticsState } from '../../analytics/state.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { EvidenceItem, VisitorClass } from './group.ts';

/** An unanswered assistant question with the keyed hash of its client's fingerprint. */
async function unansweredTurns(storage: Storage, projectId: string, range: EvidenceRange) {
  return storage.db
    .selectFrom('assistant_turns')
    .leftJoin('assistant_threads', 'assistant_threads.id', 'assistant_turns.thread_id')
    .select(['assistant_turns.query', 'assistant_turns.caller', 'assistant_turns.created_at', 'assistant_threads.fingerprint'])
    .where('assistant_turns.project_id', '=', projectId)
    .where('assistant_turns.created_at', '>=', range.from)
    .where('assistant_turns.created_at', '<', range.to)
    .where('assistant_turns.resolution', '=', 'unanswered')
    .execute();
}

const fromSender = (sender: EvidenceSender | null): { visitor: number | null; visitorClass: VisitorClass } =>
  sender ? { visitor: sender.visitorId, visitorClass: sender.visitorClass } : { visitor: null, visitorClass: null };

/**
 * Every failure of a project over a range, as grouping reads it: analytics' (searches with no hits,
 * feedback not helpful, 404s) and the assistant's unanswered questions. An assistant turn's visitor is
 * its client's fingerprint hash, numbered below zero so it never meets a dense visitor id; a turn asked
 * from the web widget is a person's, one from the API of unknown class.
 */
export async function readEvidence(storage: Storage, analytics: AnalyticsState, projectId: string, range: EvidenceRange): Promise<EvidenceItem[]> {
  const [fromAnalytics, turns] = await Promise.all([gapEvidence(analytics, projectId, range), unansweredTurns(storage, projectId, range)]);
  const items: EvidenceItem[] = [];
  for (const row of fromAnalytics.searches)
    items.push({ source: 'searches', text: row.query, path: null, ...fromSender(row.sender), count: row.count, first: row.first, last: row.last });
  for (const row of fromAnalytics.feedback)
    items.push({ source: 'feedback', text: row.comment || null, path: row.path, ...fromSender(row.sender), count: 1, first: row.at, last: row.at });
  for (const row of fromAnalytics.notFound)
    items.push({ source: 'notFound', text: null, path: row.path, ...fromSender(row.sender), count: row.count, first: row.first, last: row.last });
  const fingerprints = new Map<string, number>();
  for (const turn of turns) {
    let visitor: number | null = null;
    if (turn.fingerprint) {
      visitor = fingerprints.get(turn.fingerprint) ?? -(fingerprints.size + 1);
      fingerprints.set(turn.fingerprint, visitor);
    }
    const at = Number(turn.created_at);
    items.push({
      source: 'unanswered',
      text: turn.query,
      path: null,
      visitor,
      visitorClass: turn.caller === 'web' ? 'human' : null,
      count: 1,
      first: at,
      last: at,
    });
  }
  return items;
}
