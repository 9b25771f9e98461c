/** A docs gap as kept between reads: its evidence is computed from the raw rows (docs/gaps/). */
export interface DocsGapRow {
  /** `gap_…`, stable once given. */
  id: string;
  project_id: string;
  /** `missing`, `unclear` or `broken`, as last computed. */
  kind: string;
  /** `open`, `in_progress`, `fixed` or `dismissed`. */
  status: string;
  /** The agent job created from the gap; null until one is. */
  job_id: string | null;
  /** The head commit of the job's branch once seen in the repository; the fix is in when the ref contains it. */
  job_commit: string | null;
  /** Epoch ms when an index build of the project's ref first contained the job's commit. */
  fixed_at: number | null;
  /** JSON of the gap as it was at `fixed_at` (evidence, visitors, examples, paths, first and last seen). */
  fixed_evidence: string | null;
  /** The evidence count when the gap was dismissed; it opens again at twice as much. */
  dismissed_evidence: number | null;
  /** When `gap.opened` was queued for it; null until its visitors crossed the threshold. */
  opened_notified_at: number | null;
  created_at: number;
  updated_at: number;
}

/** One grouping key a gap has been seen under (a stemmed query, or a page). */
export interface DocsGapKeyRow {
  project_id: string;
  key: string;
  gap_id: string;
}

export interface GapsTables {
  docs_gaps: DocsGapRow;
  docs_gap_keys: DocsGapKeyRow;
}
