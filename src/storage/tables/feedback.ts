import type { Generated } from 'kysely';

/** One feedback item as a reader sent it. Codes of `source` and `status` are in analytics/feedback/kinds.ts. */
export interface AnalyticsFeedbackRow {
  /** `fbk_…`, sortable by creation. */
  id: string;
  project_key: number;
  /** Epoch ms. */
  at: number;
  /** Normalized page path. */
  path: string;
  source: number;
  status: number;
  /** 1 thumbs up, 0 thumbs down, null when the reader gave neither. */
  helpful: number | null;
  /** Plain text as typed ('' when none); rendered escaped. */
  comment: string;
  /** Only what the reader typed into a contact field; never inferred. */
  contact: string | null;
  code: string | null;
  filename: string | null;
  lang: string | null;
  /** The sender's dense visitor id (analytics_visitors), when the event named a visitor; never the IP. */
  visitor_id: number | null;
  /** The sender's class (analytics/feedback/kinds.ts `interactionClasses`), null when no user agent said. */
  visitor_class: number | null;
}

/** Feedback counts of one project, UTC day, page, source and status. */
export interface AnalyticsFeedbackDayRow {
  project_key: number;
  day: number;
  path: string;
  source: number;
  status: number;
  total: number;
  up: number;
  down: number;
}

/** One search as sent; a later event with the same `search_key` and a clicked page fills `clicked_path`. */
export interface AnalyticsSearchRow {
  id: Generated<number>;
  project_key: number;
  at: number;
  /** Normalized query (see analytics/feedback/validate.ts). */
  query: string;
  hits: number;
  /** The client's `searchId`, unique per project when given. */
  search_key: string | null;
  clicked_path: string | null;
  /** The sender's dense visitor id (analytics_visitors), when the event named a visitor; never the IP. */
  visitor_id: number | null;
  /** The sender's class (analytics/feedback/kinds.ts `interactionClasses`), null when no user agent said. */
  visitor_class: number | null;
}

/** Searches of one normalized query on one UTC day. */
export interface AnalyticsSearchDayRow {
  project_key: number;
  day: number;
  query: string;
  searches: number;
  /** Searches followed by a click. */
  clicked: number;
  /** Searches that found nothing. */
  no_hits: number;
  /** Time and hit count of the day's latest search of the query. */
  last_at: number;
  last_hits: number;
}

/** Clicked searches of one query, day and clicked page. */
export interface AnalyticsSearchClickRow {
  project_key: number;
  day: number;
  query: string;
  path: string;
  clicks: number;
}

/** All searches of one project and UTC day. */
export interface AnalyticsSearchTotalRow {
  project_key: number;
  day: number;
  searches: number;
  clicked: number;
  no_hits: number;
}

export interface FeedbackTables {
  analytics_feedback: AnalyticsFeedbackRow;
  analytics_feedback_days: AnalyticsFeedbackDayRow;
  analytics_searches: AnalyticsSearchRow;
  analytics_search_days: AnalyticsSearchDayRow;
  analytics_search_clicks: AnalyticsSearchClickRow;
  analytics_search_totals: AnalyticsSearchTotalRow;
}
