-- Dimensions of each view, decided at ingestion (and again by a rebuild from what the raw event keeps):
-- the class it counts as (0 human, 1 ai; null when it counts nowhere), the country of its client
-- address (ISO 3166-1 alpha-2; the address itself is never stored), its visit's source (the referring
-- site of the visit's first view, null for direct) and whether it began a visit. A user agent's browser,
-- OS and device are kept once per user agent. Shared links open a project's analytics page read-only.
alter table analytics_events add column counted integer;
alter table analytics_events add column country text;
alter table analytics_events add column source_id integer;
alter table analytics_events add column entry integer not null default 0;

create table analytics_agent_traits (
  agent_id integer primary key,
  browser text not null,
  os text not null,
  device text not null
);

create table analytics_shared_links (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  token_hash text not null unique,
  created_at integer not null,
  revoked_at integer
);
create index analytics_shared_links_project on analytics_shared_links (project_id);
