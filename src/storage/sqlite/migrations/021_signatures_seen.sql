-- Web Bot Auth signatures that verified, remembered until they expire (at most a week), with who first
-- presented each (the visitor hash) and for which path: the same signature presented by another visitor
-- or for another path is a replay and does not verify (analytics/ingest/verify/replays.ts).
create table analytics_signatures_seen (
  project_key integer not null,
  signature_hash text not null,
  visitor_hash text not null,
  path text not null,
  expires_at integer not null,
  primary key (project_key, signature_hash)
);
create index analytics_signatures_seen_expiry on analytics_signatures_seen (expires_at);
