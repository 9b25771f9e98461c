import type { Generated } from 'kysely';

/** A project's analytics state: its small integer key and the counters that hand out dense ids. */
export interface AnalyticsProjectRow {
  project_key: Generated<number>;
  project_id: string;
  next_visitor: Generated<number>;
  next_path: Generated<number>;
  /** Bumped by every commit that changes what a query would answer; keys the result cache. */
  version: Generated<number>;
  /** 1 when the breakdown days hold the dimension kinds for every day (new projects, or after a rebuild), else 0. */
  dimension_days: Generated<number>;
  /** The process (its visit tracker) that last stored events of the project; see analytics/ingest/dimensions/visits.ts. */
  visit_writer: Generated<string | null>;
}

export interface AnalyticsPathRow {
  project_key: number;
  /** Normalized page path (`/guides/setup`). */
  path: string;
  path_id: number;
}

export interface AnalyticsAgentRow {
  agent_id: Generated<number>;
  user_agent: string;
}

export interface AnalyticsVisitorRow {
  project_key: number;
  /** HMAC of the visitor key (IP and user agent, or the tracker's id) with the project's secret. */
  visitor_hash: string;
  visitor_id: number;
}

export interface AnalyticsVisitorLogRow extends AnalyticsVisitorRow {
  /** Order of arrival, never given twice. */
  seq: Generated<number>;
}

/** One view as it arrived: the source every visitor set can be recomputed from. Epoch ms. */
export interface AnalyticsEventRow {
  project_key: number;
  at: number;
  path_id: number;
  agent_id: number;
  visitor_id: number;
  /** 1 when the request asked for Markdown (by path suffix or Accept header), else 0. */
  markdown: number;
  status: number | null;
  referrer: string | null;
  /** Deterministic id of an imported log line, so importing a file twice counts it once. */
  event_key: string | null;
  /** 0 unknown, 1 verified, 2 spoofed (see analytics/model/verification.ts). */
  verification: number;
  /** The referring site (`analytics_referrers`), when another site sent the view; decided at ingestion. */
  referrer_id: number | null;
  /** The class the view counts as (0 human, 1 ai), null when it counts nowhere; decided at ingestion and by rebuilds. */
  counted: number | null;
  /** ISO 3166-1 alpha-2 country of the client address; null when unknown (no address, or a private one). */
  country: string | null;
  /** The referring site of the visit's first view (`analytics_referrers`); null for a direct visit. */
  source_id: number | null;
  /** 1 when the view began a visit (a visitor's first view after 30 minutes without one), else 0. */
  entry: number;
}

/** What a user agent says of the client, parsed once per user agent. */
export interface AnalyticsAgentTraitsRow {
  agent_id: number;
  browser: string;
  os: string;
  /** `desktop`, `mobile`, `tablet` or `bot`. */
  device: string;
}

/** A read-only link to a project's analytics page; only the token's hash is kept. Epoch ms. */
export interface AnalyticsSharedLinkRow {
  id: string;
  project_id: string;
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** A committed batch's counted views, encoded, until the indexer folds them into day sets. */
export interface AnalyticsPendingRow {
  id: Generated<number>;
  project_key: number;
  tuples: Uint8Array;
  /** The batch's breakdown entries (see analytics/model/breakdown-batch.ts); null in batches without any. */
  breakdowns: Uint8Array | null;
  /** Views whose visit ingestion could not be sure of (see analytics/model/visit-doubts.ts); null when none. */
  visits: Generated<Uint8Array | null>;
}

/** Doubtful views a fold took from pending batches and has not repaired yet (analytics/fold/visit-repair.ts). */
export interface AnalyticsVisitDoubtsRow {
  id: Generated<number>;
  project_key: number;
  visits: Uint8Array;
}

/** One row per project, updated by every fold first: folds of one project take turns, each after the last one's commit. */
export interface AnalyticsFoldTurnRow {
  project_key: number;
  turns: number;
}

/** A referring site's host, lower case and without `www.`; ids are shared by every project. */
export interface AnalyticsReferrerRow {
  referrer_id: Generated<number>;
  host: string;
}

/** Per agent or referrer of one UTC day and kind: views and sorted visitors (a day set keyed by agent or referrer id). */
export interface AnalyticsBreakdownDayRow {
  project_key: number;
  day: number;
  kind: number;
  revision: number;
  data: Uint8Array;
}

/** One value's pages of a whole UTC day and class (query/value-pages.ts): day-set encoding, keyed by path id. */
export interface AnalyticsValuePageRow {
  project_key: number;
  /** 0 country, 1 visit source. */
  property: number;
  /** The country's or source's breakdown key (model/breakdown-batch.ts). */
  value_key: number;
  day: number;
  class: number;
  data: Uint8Array;
}

/** What a day's value pages were computed from (the revisions of its day sets and records), and their revision. */
export interface AnalyticsValuePageDayRow {
  project_key: number;
  day: number;
  fingerprint: string;
  revision: number;
}

/** Docs gaps' evidence of one whole UTC day and source, with what its raw rows were when it was computed (gap-days.ts). */
export interface AnalyticsGapDayRow {
  project_key: number;
  day: number;
  source: number;
  failures: number;
  classification: string;
  units: string;
  senders: Uint8Array;
}

/** Requests answered 404 of one project and UTC day, counted at ingestion. */
export interface AnalyticsNotFoundDayRow {
  project_key: number;
  day: number;
  failures: number;
}

/** Visitors of one UTC day and class (0 human, 1 AI), per path, encoded (see encoding.ts). */
export interface AnalyticsDaySetRow {
  project_key: number;
  day: number;
  class: number;
  revision: number;
  data: Uint8Array;
}

/** Analytics facts shared by every process, by key (`classification_version`, see fold/reclassify.ts). */
export interface AnalyticsSettingRow {
  key: string;
  value: string;
}

/** Where `quire analytics tail` stopped in a file (analytics/importers/tail-position.ts). */
export interface AnalyticsTailPositionRow {
  project_id: string;
  /** `device:inode:hash of the first line`: a rotated or replaced file is another identity. */
  file_identity: string;
  path: string;
  /** Byte offset just after the last line stored. */
  position: number;
  /** Lines read from the file so far. */
  lines: number;
  updated_at: number;
}

/** A push log drain: where a host posts its request logs for one project (see analytics/drains/). */
export interface AnalyticsDrainRow {
  id: string;
  project_id: string;
  kind: string;
  name: string | null;
  /** The drain's secret, sealed with QUIRE_SECRET_KEY (accounts/secrets.ts): Vercel signs batches with it. */
  secret: string;
  /** Vercel's verification code, answered in the `x-vercel-verify` header. */
  verify_token: string | null;
  created_at: number;
}

/** A Web Bot Auth signature that verified, and who first presented it (see analytics/ingest/verify/replays.ts). */
export interface AnalyticsSignatureSeenRow {
  project_key: number;
  /** SHA-256 of the Signature header's value, 22 characters of base64url. */
  signature_hash: string;
  /** The visitor hash of the first event that presented it. */
  visitor_hash: string;
  /** The path it was presented for. */
  path: string;
  /** When it stops being remembered: its `expires`, at most a week after it was first seen (epoch ms). */
  expires_at: number;
}

export interface AnalyticsTables {
  analytics_projects: AnalyticsProjectRow;
  analytics_paths: AnalyticsPathRow;
  analytics_agents: AnalyticsAgentRow;
  analytics_visitors: AnalyticsVisitorRow;
  /** New visitors not yet moved into `analytics_visitors`, in arrival order (SQLite only; see visitor-log.ts). */
  analytics_visitor_log: AnalyticsVisitorLogRow;
  analytics_events: AnalyticsEventRow;
  analytics_pending: AnalyticsPendingRow;
  analytics_visit_doubts: AnalyticsVisitDoubtsRow;
  analytics_fold_turns: AnalyticsFoldTurnRow;
  analytics_day_sets: AnalyticsDaySetRow;
  analytics_settings: AnalyticsSettingRow;
  analytics_referrers: AnalyticsReferrerRow;
  analytics_breakdown_days: AnalyticsBreakdownDayRow;
  analytics_value_pages: AnalyticsValuePageRow;
  analytics_value_page_days: AnalyticsValuePageDayRow;
  analytics_gap_days: AnalyticsGapDayRow;
  analytics_not_found_days: AnalyticsNotFoundDayRow;
  analytics_tail_positions: AnalyticsTailPositionRow;
  analytics_drains: AnalyticsDrainRow;
  analytics_signatures_seen: AnalyticsSignatureSeenRow;
  analytics_agent_traits: AnalyticsAgentTraitsRow;
  analytics_shared_links: AnalyticsSharedLinkRow;
}
