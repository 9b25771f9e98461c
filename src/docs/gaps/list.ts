import type { AnalyticsState } from '../../analytics/state.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { DocsGapRow } from '../../storage/tables/gaps.ts';
import { readEvidence } from './evidence.ts';
import { groupEvidence, type EvidenceCounts, type GapGroup, type GapKind } from './group.ts';
import { isGapIdOf, planGaps, readStoredGaps, storeGaps, updateGap, type GapStatus } from './store.ts';

/** A gap as the API answers it (CONTRACT.md, "Docs gaps"). */
export interface GapView {
  id: string;
  title: string;
  kind: GapKind;
  status: GapStatus;
  evidence: EvidenceCounts;
  visitors: { human: number; ai: number; total: number };
  examples: string[];
  paths: string[];
  firstSeenAt: string | null;
  lastSeenAt: string | null;
  jobId: string | null;
  prLink: string | null;
  fixedAt: string | null;
  after: EvidenceCounts | null;
}

/** What a gap froze when its fix reached the ref. */
type Frozen = Pick<GapGroup, 'title' | 'kind' | 'evidence' | 'visitors' | 'examples' | 'paths' | 'firstSeenAt' | 'lastSeenAt'>;

export interface GapsState {
  storage: Storage;
  analytics: AnalyticsState;
}

export interface ComputedGap {
  row: DocsGapRow;
  group: Frozen | null;
  /** The keys of the evidence grouped into it over the range. */
  keys: string[];
}

const total = (evidence: EvidenceCounts) => evidence.unanswered + evidence.searches + evidence.feedback + evidence.notFound;
const isoOrNull = (at: number | null) => (at === null || !Number.isFinite(at) ? null : new Date(at).toISOString());
const noEvidence = (): EvidenceCounts => ({ unanswered: 0, searches: 0, feedback: 0, notFound: 0 });

/** A frozen copy of a group, as stored when its gap is fixed. */
export function freeze(group: Frozen | null): string {
  const { title, kind, evidence, visitors, examples, paths, firstSeenAt, lastSeenAt } = group ?? {
    title: '',
    kind: 'missing' as const,
    evidence: noEvidence(),
    visitors: { human: 0, ai: 0, total: 0 },
    examples: [],
    paths: [],
    firstSeenAt: Number.NaN,
    lastSeenAt: Number.NaN,
  };
  return JSON.stringify({ title, kind, evidence, visitors, examples, paths, firstSeenAt, lastSeenAt });
}

/**
 * A project's gaps over a range: the evidence grouped, each group joined to its stored gap (a new one
 * gets an id derived from its keys), a dismissed gap opened again once its evidence doubled, and the
 * gaps with a job or a fix that have no evidence in the range kept (with their frozen evidence, for a
 * fixed one). Reads write nothing, so any process answers the same ids; with `write` (the operations
 * that change gaps, and the refresh), new gaps and keys are stored and a reopened gap is saved open;
 * `claim`, the gap id the operation names, stays that gap's id (see `planGaps`).
 */
export async function computeGaps(
  state: GapsState,
  projectId: string,
  range: { from: number; to: number },
  options: { write?: boolean; claim?: string } = {},
): Promise<ComputedGap[]> {
  const { db } = state.storage;
  const [items, stored] = await Promise.all([readEvidence(state.storage, state.analytics, projectId, range), readStoredGaps(db, projectId)]);
  const groups = groupEvidence(items);
  const plan = planGaps(projectId, groups, stored, { claim: options.claim });
  if (options.write) await storeGaps(db, plan);
  const byId = new Map<string, GapGroup[]>();
  plan.ids.forEach((id, index) => byId.set(id, [...(byId.get(id) ?? []), groups[index]!]));
  const result: ComputedGap[] = [];
  for (const [id, row] of stored.gaps) {
    const found = byId.get(id);
    const group = found ? merge(found) : null;
    const keys = found ? found.flatMap((one) => one.keys) : [];
    if (row.status === 'fixed') {
      result.push({ row, group: row.fixed_evidence ? (JSON.parse(row.fixed_evidence) as Frozen) : group, keys });
      continue;
    }
    if (row.status === 'dismissed' && group && row.dismissed_evidence !== null && total(group.evidence) >= 2 * row.dismissed_evidence) {
      const reopened: DocsGapRow = { ...row, status: 'open', dismissed_evidence: null };
      const saved = options.write ? await updateGap(db, projectId, id, { status: 'open', dismissed_evidence: null }) : undefined;
      result.push({ row: saved ?? reopened, group, keys });
      continue;
    }
    if (group || row.job_id !== null) result.push({ row, group, keys });
  }
  return result;
}

/**
 * The gap `gapId` among computed ones: by its id, or, for an id a read answered before the gap was
 * stored, by the keys it was derived from (a later key may have joined its group since).
 */
export function findGap(gaps: readonly ComputedGap[], projectId: string, gapId: string): ComputedGap | undefined {
  return gaps.find((gap) => gap.row.id === gapId) ?? gaps.find((gap) => gap.row.status !== 'fixed' && isGapIdOf(projectId, gap.keys, gapId));
}

/** Groups that met one stored gap (a group that joined several keeps the oldest gap; others stay). */
function merge(groups: GapGroup[]): GapGroup {
  if (groups.length === 1) return groups[0]!;
  const sorted = [...groups].sort((a, b) => b.visitors.total - a.visitors.total);
  const first = sorted[0]!;
  const evidence = noEvidence();
  for (const group of sorted) for (const source of Object.keys(evidence) as (keyof EvidenceCounts)[]) evidence[source] += group.evidence[source];
  return {
    ...first,
    evidence,
    // Visitors of several groups may overlap: the largest group's is a floor, the sum a ceiling; the floor is shown.
    examples: [...new Set(sorted.flatMap((group) => group.examples))].slice(0, 5),
    paths: [...new Set(sorted.flatMap((group) => group.paths))].slice(0, 10),
    firstSeenAt: Math.min(...sorted.map((group) => group.firstSeenAt)),
    lastSeenAt: Math.max(...sorted.map((group) => group.lastSeenAt)),
  };
}

/** Visitors total of a computed gap, the ranking's measure. */
export const visitorsOf = (gap: ComputedGap) => gap.group?.visitors.total ?? 0;

/** Orders gaps as the list does: visitors affected, most first, then id. */
export function rankGaps(gaps: ComputedGap[]): ComputedGap[] {
  return gaps.sort((a, b) => visitorsOf(b) - visitorsOf(a) || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
}

/**
 * The evidence the gap's keys gathered since its fix, up to now: whether the same questions stopped
 * failing. Read from the raw rows, grouped as the list groups.
 */
export async function afterFix(state: GapsState, row: DocsGapRow, now = Date.now()): Promise<EvidenceCounts | null> {
  if (row.status !== 'fixed' || row.fixed_at === null) return null;
  if (row.fixed_at >= now) return noEvidence();
  const [items, keys] = await Promise.all([
    readEvidence(state.storage, state.analytics, row.project_id, { from: row.fixed_at, to: now }),
    state.storage.db.selectFrom('docs_gap_keys').select('key').where('gap_id', '=', row.id).execute(),
  ]);
  const own = new Set(keys.map((key) => key.key));
  const after = noEvidence();
  for (const group of groupEvidence(items)) {
    if (!group.keys.some((key) => own.has(key))) continue;
    for (const source of Object.keys(after) as (keyof EvidenceCounts)[]) after[source] += group.evidence[source];
  }
  return after;
}

/** The API's view of a computed gap; `prLink` is its job's. */
export function gapView(gap: Pick<ComputedGap, 'row' | 'group'>, prLink: string | null, after: EvidenceCounts | null): GapView {
  const { row, group } = gap;
  return {
    id: row.id,
    title: group?.title || 'Gap without evidence in this range',
    kind: (group?.kind ?? row.kind) as GapKind,
    status: row.status as GapStatus,
    evidence: group?.evidence ?? noEvidence(),
    visitors: group?.visitors ?? { human: 0, ai: 0, total: 0 },
    examples: group?.examples ?? [],
    paths: group?.paths ?? [],
    firstSeenAt: isoOrNull(group?.firstSeenAt ?? null),
    lastSeenAt: isoOrNull(group?.lastSeenAt ?? null),
    jobId: row.job_id,
    prLink,
    fixedAt: isoOrNull(row.fixed_at),
    after,
  };
}
