-- Visitor analytics: raw events (the source of truth), dictionaries that map paths, user agents and
-- visitor keys to dense integers, per-day visitor sets, and the log of batches not yet folded into them.
create table analytics_projects (
  project_key integer primary key,
  project_id text not null unique references projects (id),
  next_visitor integer not null default 1,
  next_path integer not null default 1,
  version integer not null default 0
);

create table analytics_paths (
  project_key integer not null,
  path text not null,
  path_id integer not null,
  primary key (project_key, path)
) without rowid;

create table analytics_agents (
  agent_id integer primary key,
  user_agent text not null unique
);

create table analytics_visitors (
  project_key integer not null,
  visitor_hash text not null,
  visitor_id integer not null,
  primary key (project_key, visitor_hash)
) without rowid;

create table analytics_events (
  project_key integer not null,
  at integer not null,
  path_id integer not null,
  agent_id integer not null,
  visitor_id integer not null,
  markdown integer not null,
  status integer,
  referrer text,
  event_key text
);
create index analytics_events_time on analytics_events (project_key, at);
create unique index analytics_events_key on analytics_events (project_key, event_key) where event_key is not null;

create table analytics_pending (
  id integer primary key autoincrement,
  project_key integer not null,
  tuples blob not null
);
create index analytics_pending_project on analytics_pending (project_key, id);

create table analytics_day_sets (
  project_key integer not null,
  day integer not null,
  class integer not null,
  revision integer not null,
  data blob not null,
  primary key (project_key, day, class)
) without rowid;
