-- Push log drains: HTTP endpoints a host (Vercel, Cloudflare Logpush, Netlify, any NDJSON sender) posts
-- its request logs to, one per drain. The secret authenticates the host's batches; it is sealed with
-- QUIRE_SECRET_KEY (Vercel signs with it, so a hash would not do). A batch sent again is not counted
-- twice: its events carry keys (analytics_events.event_key), so no separate record of batches is kept.
create table analytics_drains (
  id text primary key,
  project_id text not null references projects (id),
  kind text not null,
  name text,
  secret text not null,
  verify_token text,
  created_at integer not null
);
create index analytics_drains_project on analytics_drains (project_id, created_at);
