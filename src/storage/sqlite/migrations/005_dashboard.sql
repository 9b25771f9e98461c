-- Dashboard sign-in: one-time links and browser sessions. Only SHA-256 hashes of their tokens are
-- stored, so a copy of the database cannot be used to sign in.
create table dashboard_sign_in_links (
  token_hash text primary key,
  org_id text not null references organizations (id),
  expires_at integer not null,
  used_at integer,
  created_at integer not null
);
create index dashboard_sign_in_links_expiry on dashboard_sign_in_links (expires_at);

create table dashboard_sessions (
  id text primary key,
  token_hash text not null unique,
  org_id text not null references organizations (id),
  expires_at integer not null,
  created_at integer not null
);
create index dashboard_sessions_expiry on dashboard_sessions (expires_at);
