-- Organizations own projects; admin API keys belong to one organization.
create table organizations (
  id text primary key,
  name text not null,
  created_at integer not null
);

create table projects (
  id text primary key,
  org_id text not null references organizations (id),
  name text not null,
  repository text,
  ref text,
  docs_path text,
  model text,
  tracker_domains text not null default '',
  analytics_secret text not null,
  created_at integer not null,
  updated_at integer not null
);
create index projects_org on projects (org_id, created_at);

create table api_keys (
  id text primary key,
  org_id text not null references organizations (id),
  name text not null,
  prefix text not null,
  hash text not null unique,
  scopes text not null,
  project_ids text,
  expires_at integer,
  revoked_at integer,
  last_used_at integer,
  created_at integer not null
);
create index api_keys_org on api_keys (org_id, created_at);
