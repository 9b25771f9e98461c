-- New visitors are appended to a log in the order they arrive and move into analytics_visitors in bulk.
-- The table this replaces was keyed by visitor hash, so each new visitor went to a random page of it:
-- SQLite's log holds whole pages, and a commit of a thousand views wrote about a hundred of them (over
-- half of all bytes written while ingesting). Appended rows share the last page. A process finds
-- visitors in the log through its own copy of it in memory, kept up to date by `seq`
-- (src/analytics/ingest/visitor-log.ts); `autoincrement` keeps a `seq` from being given twice.
create table analytics_visitor_log (
  seq integer primary key autoincrement,
  project_key integer not null,
  visitor_hash text not null,
  visitor_id integer not null
);
insert into analytics_visitor_log (project_key, visitor_hash, visitor_id)
  select project_key, visitor_hash, visitor_id from analytics_recent_visitors order by visitor_id;
drop table analytics_recent_visitors;
