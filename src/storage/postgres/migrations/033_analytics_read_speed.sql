-- Docs gaps' evidence per whole UTC day (docs/gaps.md, "Speed"): for searches without hits and for
-- requests answered 404, the queries or paths (`units`, a JSON list) and each one's count, first and last
-- time and its senders by class (`senders`, varints: see feedback/gap-days.ts), so the gaps list reads a
-- row per day instead of every failure. A row stands while its day's
-- failures are the ones it was computed from: `failures` is their count then, checked against the counts
-- ingestion keeps (analytics_search_totals.no_hits, and analytics_not_found_days below), and
-- `classification` the agent lists' version that classed its 404s. The docs gaps loop computes missing
-- or stale rows from the raw rows; a list computes them in memory meanwhile.
create table analytics_gap_days (
  project_key bigint not null,
  day bigint not null,
  source integer not null,
  failures bigint not null,
  classification text not null,
  units text not null,
  senders bytea not null,
  primary key (project_key, day, source)
);

-- Requests answered 404 per project and UTC day, counted by ingestion in the transaction that stores them
-- (a purge that empties part of a day moves its count on too: it tells a change, not only a number).
create table analytics_not_found_days (
  project_key bigint not null,
  day bigint not null,
  failures bigint not null,
  primary key (project_key, day)
);
insert into analytics_not_found_days (project_key, day, failures)
  select project_key, at / 86400000, count(*) from analytics_events where status = 404 group by project_key, at / 86400000;

-- A raw event names its page by id: breakdowns, filters and realtime join each event to its path by
-- (project, id), which the primary key (project, path) does not serve (SQLite scanned the project's paths
-- once per event).
create index analytics_paths_id on analytics_paths (project_key, path_id);
