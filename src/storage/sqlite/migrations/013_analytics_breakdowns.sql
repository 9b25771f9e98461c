-- Breakdowns of views by AI agent and by referring site. Referring hosts (taken from the referrer, or
-- from the page's utm_source when it names a site) map to dense ids shared by every project. Pending
-- batches carry their views' breakdown entries beside their counted views, and the fold unions them
-- into per (project, UTC day, kind) sets: for each agent or referrer, its view count and sorted visitors.
alter table analytics_events add column referrer_id integer;
alter table analytics_pending add column breakdowns blob;

create table analytics_referrers (
  referrer_id integer primary key,
  host text not null unique
);

create table analytics_breakdown_days (
  project_key integer not null,
  day integer not null,
  kind integer not null,
  revision integer not null,
  data blob not null,
  primary key (project_key, day, kind)
) without rowid;
