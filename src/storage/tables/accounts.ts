/** Rows of the accounts tables (timestamps are epoch milliseconds). */
export interface OrganizationRow {
  id: string;
  name: string;
  /** 1 for the organization created at first start (see QUIRE_TRUST_FIRST_ORGANIZATION). */
  first_start: number;
  /** 1 when the operator lets it use the server-wide GITHUB_* and GITLAB_TOKEN credentials. */
  server_credentials: number;
  created_at: number;
}

/** A directory (its real path) whose repositories the operator let an organization use. */
export interface LocalGrantRow {
  org_id: string;
  path: string;
  created_at: number;
}

export const connectionKinds = ['github-token', 'github-app', 'gitlab'] as const;
export type ConnectionKind = (typeof connectionKinds)[number];

/** An organization's own credentials on a code host. */
export interface ConnectionRow {
  id: string;
  org_id: string;
  kind: ConnectionKind;
  /** Who the credentials act as (login, user name), or `installation <id>`; shown in listings. */
  account: string;
  /** The GitHub App installation (`github-app` only). */
  installation_id: number | null;
  /** The token encrypted with QUIRE_SECRET_KEY (see secrets.ts); null for `github-app`. */
  secret: string | null;
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
  /** 1 (the default): requests for static assets from logs, drains and the proxy are not views (analytics/capture/assets.ts). */
  skip_assets: number;
  /** Changes to the asset rule's extensions: space-separated `+ext` (an asset too) and `-ext` (a page); '' for none. */
  asset_extensions: string;
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
  local_grants: LocalGrantRow;
  code_host_connections: ConnectionRow;
}
