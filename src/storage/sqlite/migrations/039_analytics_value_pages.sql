-- Visitors and views filtered by one country or one visit source, per page (docs/analytics.md, "Speed"): per
-- whole UTC day, class and value, each page's sorted visitors and views, in the day-set encoding. A view's
-- country and source are kept on its raw event only, so these are computed from the raw events of a day in
-- the background, never at ingestion. analytics_value_page_days records what a day's pages were computed
-- from: the revisions of that day's day sets and of its country and source records (`fingerprint`); a query
-- uses a day's pages only while those are unchanged and no view of that day is pending, and otherwise counts
-- that day's raw events. `revision` grows with each computation, so processes cache decoded pages by it.
create table analytics_value_pages (
  project_key integer not null,
  property integer not null,
  value_key integer not null,
  day integer not null,
  class integer not null,
  data blob not null,
  primary key (project_key, property, value_key, day, class)
);
-- A day's pages are replaced together; its rows are found by day. (The pages live in a rowid table so
-- that the key's index stays small and a day's rows, written together, lie together.)
create index analytics_value_pages_day on analytics_value_pages (project_key, day);

create table analytics_value_page_days (
  project_key integer not null,
  day integer not null,
  fingerprint text not null,
  revision integer not null,
  primary key (project_key, day)
) without rowid;
