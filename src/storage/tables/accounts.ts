/** Rows of the accounts tables (timestamps are epoch milliseconds). */
export interface OrganizationRow {
  id: string;
  name: string;
  created_at: number;
}

export interface ProjectRow {
  id: string;
  org_id: string;
  name: string;
  repository: string | null;
  ref: string | null;
  docs_path: string | null;
  /** `provider:model`; null uses QUIRE_MODEL. */
  model: string | null;
  /** Comma-separated host names the browser tracker may report from. */
  tracker_domains: string;
  /** Per-project HMAC key for visitor ids; never leaves the server. */
  analytics_secret: string;
  created_at: number;
  updated_at: number;
}

export interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  /** First characters of the key, shown so people can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  hash: string;
  /** Comma-separated scopes: read, write, ingest. */
  scopes: string;
  /** Comma-separated project ids the key is limited to; null means every project of the organization. */
  project_ids: string | null;
  /** Comma-separated IP addresses and CIDR ranges the key may be used from; null means any address. */
  allowed_ips: string | null;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

export interface AccountsTables {
  organizations: OrganizationRow;
  projects: ProjectRow;
  api_keys: ApiKeyRow;
}
