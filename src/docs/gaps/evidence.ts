import {
  gapEvidence,
  gapEvidenceMark,
  keepGapEvidence,
  type EvidenceRange,
  type EvidenceSender,
  type GapEvidence,
} from '../../analytics/feedback/gap-evidence.ts';
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

/** A query's or a path's failures, with their senders by class. */
type FailureEntry = GapEvidence['searches'][number];

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
  const fromEntry = ({ human, ai, other, count, first, last }: FailureEntry) => ({
    visitor: null,
    visitorClass: null,
    senders: { human, ai, other },
    count,
    first,
    last,
  });
  for (const entry of fromAnalytics.searches) items.push({ source: 'searches', text: entry.unit, path: null, ...fromEntry(entry) });
  const single: EvidenceItem[] = [];
  for (const row of fromAnalytics.feedback)
    single.push({ source: 'feedback', text: row.comment || null, path: row.path, ...fromSender(row.sender), count: 1, first: row.at, last: row.at });
  for (const entry of fromAnalytics.notFound) items.push({ source: 'notFound', text: null, path: entry.unit, ...fromEntry(entry) });
  const fingerprints = new Map<string, number>();
  for (const turn of turns) {
    let visitor: number | null = null;
    if (turn.fingerprint) {
      visitor = fingerprints.get(turn.fingerprint) ?? -(fingerprints.size + 1);
      fingerprints.set(turn.fingerprint, visitor);
    }
    const at = Number(turn.created_at);
    single.push({
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
  return [...items, ...combined(single)];
}

/**
 * Items of one source, text and page made one, with their senders by class: grouping reads them
 * alike (they always share a gap), and a list of many thousands of unanswered turns or thumbs down
 * is grouped as a list of their distinct questions and pages.
 */
function combined(items: EvidenceItem[]): EvidenceItem[] {
  const byKey = new Map<string, EvidenceItem & { senders: { human: number[]; ai: number[]; other: number[] } }>();
  for (const item of items) {
    const key = `${item.source}\u0000${item.text ?? '\u0001'}\u0000${item.path ?? '\u0001'}`;
    let entry = byKey.get(key);
    if (!entry) {
      entry = { ...item, visitor: null, visitorClass: null, senders: { human: [], ai: [], other: [] }, count: 0 };
      byKey.set(key, entry);
    }
    entry.count += item.count;
    if (item.first < entry.first) entry.first = item.first;
    if (item.last > entry.last) entry.last = item.last;
    if (item.visitor !== null) entry.senders[item.visitorClass ?? 'other'].push(item.visitor);
  }
  return [...byKey.values()].map(({ senders, ...entry }) => ({ ...entry, senders: { human: [senders.human], ai: [senders.ai], other: [senders.other] } }));
}

/** How many days back the write side keeps evidence per day, so lists over them read kept days. */
const keptEvidenceDays = 90;

/** The write side of the evidence: stores the kept days (searches without hits, 404s) of the last `keptEvidenceDays` days. */
export async function keepEvidence(analytics: AnalyticsState, projectId: string, now = Date.now()): Promise<void> {
  await keepGapEvidence(analytics, projectId, { from: now - keptEvidenceDays * 86_400_000, to: now });
}

/**
 * A mark of all of a project's gap evidence (gapEvidenceMark, and its unanswered assistant questions):
 * while it stays the same, a refresh of the project's gaps would find nothing new.
 */
export async function evidenceMark(analytics: AnalyticsState, projectId: string): Promise<string> {
  const [kept, unanswered] = await Promise.all([
    gapEvidenceMark(analytics, projectId),
    analytics.storage.db
      .selectFrom('assistant_turns')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_id', '=', projectId)
      .where('resolution', '=', 'unanswered')
      .executeTakeFirst(),
  ]);
  return `${kept}:${Number(unanswered?.count ?? 0)}`;
}
