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
  /** `provider:model` the docs assistant answers with; null uses `model`, then QUIRE_MODEL. */
  assistant_model: string | null;
  /** Comma-separated host names the browser tracker may report from. */
  tracker_domains: string;
  /** Per-project HMAC key for visitor ids; never leaves the server. */
  analytics_secret: string;
  /** 1 (the default): requests for static assets from logs, drains and the proxy are not views (analytics/capture/assets.ts). */
  skip_assets: number;
  /** Changes to the asset rule's extensions: space-separated `+ext` (an asset too) and `-ext` (a page); '' for none. */
  asset_extensions: string;
  /** The public address of the docs site (`https://…`); null: the project's site surface on Quire (see defaultSiteUrl). */
  site_url: string | null;
  /** 1: the site surface and the search MCP server answer anonymous requests; 0 (the default): they need a key. */
  docs_public: number;
  /** Names the project's MCP tools, `[a-z0-9_]{1,40}`, unique in the organization; null until first read (accounts/mcp-name.ts). */
  mcp_name: string | null;
  created_at: number;
  updated_at: number;
}

export const keyKinds = ['admin', 'assistant'] as const;
export type KeyKind = (typeof keyKinds)[number];

export interface ApiKeyRow {
  id: string;
  org_id: string;
  /** `admin` keys call the admin API; `assistant` keys (`quire_dsc_…`) only read one project's docs (accounts/docs-access.ts). */
  kind: KeyKind;
  name: string;
  /** First characters of the key, shown so people can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  hash: string;
  /** Comma-separated scopes: read, write, ingest; '' for assistant keys, which have none of the admin API. */
  scopes: string;
  /** Comma-separated project ids the key is limited to; null means every project of the organization. An assistant key's one project. */
  project_ids: string | null;
  /** Comma-separated browser origins an assistant key may be used from; null means any origin (and always null for admin keys). */
  allowed_origins: string | null;
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
