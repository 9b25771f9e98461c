-- Docs feedback and search analytics. Feedback items and searches are stored as sent (the source of
-- truth, purged with the raw events); per (project, UTC day, …) aggregates maintained in the same
-- transaction keep range exports to a bounded number of rows: feedback counts per page, source and
-- status; searches per normalized query (with their clicked pages); and each day's search totals.
create table analytics_feedback (
  id text primary key,
  project_key integer not null,
  at integer not null,
  path text not null,
  source integer not null,
  status integer not null,
  helpful integer,
  comment text not null,
  contact text,
  code text,
  filename text,
  lang text
);
create index analytics_feedback_list on analytics_feedback (project_key, status, source, at, id);
create index analytics_feedback_at on analytics_feedback (at);

create table analytics_feedback_days (
  project_key integer not null,
  day integer not null,
  path text not null,
  source integer not null,
  status integer not null,
  total integer not null,
  up integer not null,
  down integer not null,
  primary key (project_key, day, path, source, status)
) without rowid;

create table analytics_searches (
  id integer primary key,
  project_key integer not null,
  at integer not null,
  query text not null,
  hits integer not null,
  search_key text,
  clicked_path text
);
create unique index analytics_searches_key on analytics_searches (project_key, search_key) where search_key is not null;
create index analytics_searches_at on analytics_searches (project_key, at);

create table analytics_search_days (
  project_key integer not null,
  day integer not null,
  query text not null,
  searches integer not null,
  clicked integer not null,
  no_hits integer not null,
  last_at integer not null,
  last_hits integer not null,
  primary key (project_key, query, day)
) without rowid;
create index analytics_search_days_top on analytics_search_days (project_key, day, searches desc, query);
create index analytics_search_days_no_hits on analytics_search_days (project_key, day, no_hits desc, query) where no_hits > 0;

create table analytics_search_clicks (
  project_key integer not null,
  day integer not null,
  query text not null,
  path text not null,
  clicks integer not null,
  primary key (project_key, query, day, path)
) without rowid;

create table analytics_search_totals (
  project_key integer not null,
  day integer not null,
  searches integer not null,
  clicked integer not null,
  no_hits integer not null,
  primary key (project_key, day)
) without rowid;
