-- New visitors are written here first and moved into analytics_visitors in bulk. SQLite's log holds
-- whole pages, so a random insert into the large visitor index costs a page written per new visitor;
-- this table stays small, so one page written at commit holds many new visitors.
create table analytics_recent_visitors (
  project_key integer not null,
  visitor_hash text not null,
  visitor_id integer not null,
  primary key (project_key, visitor_hash)
) without rowid;

-- Raw events are found by project and UTC day (then filtered by time): views arrive in time order
-- only roughly, so an index on the exact time took inserts at random places of the current day,
-- while (project, day, rowid) only ever grows at its end.
drop index analytics_events_time;
create index analytics_events_day on analytics_events (project_key, (at / 86400000));
