-- New visitors are written here first and moved into analytics_visitors in bulk. SQLite's log holds
-- whole pages, so a random insert into the large visitor index costs a page written per new visitor;
-- this table stays small, so one page written at commit holds many new visitors.
create table analytics_recent_visitors (
  project_key integer not null,
  visitor_hash text not null,
  visitor_id integer not null,
  primary key (project_key, visitor_hash)
) without rowid;
