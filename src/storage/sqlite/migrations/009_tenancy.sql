-- Tenancy: what each organization may reach. The organization created at first start is marked so
-- QUIRE_TRUST_FIRST_ORGANIZATION can name it; on an existing install that is the oldest one.
alter table organizations add column first_start integer not null default 0;
-- 1 when the operator lets the organization use the server-wide GITHUB_* and GITLAB_TOKEN credentials.
alter table organizations add column server_credentials integer not null default 0;
update organizations set first_start = 1 where id = (select id from organizations order by created_at, id limit 1);

-- Local repositories (directories, stored as real paths) the operator granted an organization.
create table local_grants (
  org_id text not null references organizations (id),
  path text not null,
  created_at integer not null,
  primary key (org_id, path)
);

-- An organization's own code-host credentials; tokens are AES-256-GCM ciphertext (QUIRE_SECRET_KEY).
create table code_host_connections (
  id text primary key,
  org_id text not null references organizations (id),
  kind text not null,
  account text not null,
  installation_id integer,
  secret text,
  created_at integer not null
);
create index code_host_connections_org on code_host_connections (org_id, created_at);
