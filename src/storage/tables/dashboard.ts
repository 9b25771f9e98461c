/** Rows of the dashboard tables (timestamps are epoch milliseconds). */
export interface SignInLinkRow {
  /** SHA-256 of the link's token, hex; the token itself is only in the printed link. */
  token_hash: string;
  org_id: string;
  expires_at: number;
  /** Set when the link is redeemed; a used link never works again. */
  used_at: number | null;
  created_at: number;
}

export interface DashboardSessionRow {
  id: string;
  /** SHA-256 of the session cookie's value, hex. */
  token_hash: string;
  org_id: string;
  expires_at: number;
  created_at: number;
  /** Last request with the session, to the minute (see findSession). */
  last_seen_at: number | null;
  /** The person signed in; null for a session opened by a `quire dashboard link` (the operator, an owner). */
  person_id: string | null;
}

/** A key-generation form that was sent (see migration 007). */
export interface DashboardFormUseRow {
  session_id: string;
  form_id: string;
  created_at: number;
}

export interface DashboardTables {
  dashboard_form_uses: DashboardFormUseRow;
  dashboard_sign_in_links: SignInLinkRow;
  dashboard_sessions: DashboardSessionRow;
}
