-- People of an organization, who sign in to the dashboard with a passkey or a password. Sessions
-- opened by a `quire dashboard link` have no person: they are the operator's recovery path.
create table people (
  id text primary key,
  org_id text not null references organizations (id),
  name text not null,
  -- Lower-cased; the name a person signs in with, unique across the server.
  email text not null unique,
  role text not null check (role in ('owner', 'member')),
  -- scrypt$N$r$p$salt$hash (base64url); null for a person who signs in with passkeys only.
  password_hash text,
  created_at bigint not null
);
create index people_org on people (org_id);

create table person_passkeys (
  -- The WebAuthn credential id, base64url.
  id text primary key,
  person_id text not null references people (id) on delete cascade,
  public_key text not null,
  counter bigint not null,
  transports text not null default '',
  created_at bigint not null,
  last_used_at bigint
);
create index person_passkeys_person on person_passkeys (person_id);

-- One-time invitation links an owner creates; only the SHA-256 of the token is stored.
create table invitations (
  id text primary key,
  token_hash text not null unique,
  org_id text not null references organizations (id),
  role text not null check (role in ('owner', 'member')),
  note text not null default '',
  created_at bigint not null,
  expires_at bigint not null,
  used_at bigint,
  person_id text
);
create index invitations_org on invitations (org_id);

-- A WebAuthn challenge between the options a browser asked for and the answer it sends.
create table webauthn_challenges (
  id text primary key,
  challenge text not null,
  purpose text not null,
  expires_at bigint not null
);

alter table dashboard_sessions add column person_id text references people (id) on delete cascade;
create index dashboard_sessions_person on dashboard_sessions (person_id);
