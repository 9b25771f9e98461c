-- Server-side capture (log tail, reverse proxy, importer). `skip_assets`: whether requests for static
-- assets (images, scripts, styles, fonts) from logs, drains and the proxy are dropped rather than counted
-- as views (analytics/ingest/assets.ts); on by default, `quire projects update --skip-assets off` keeps them.
alter table projects add column skip_assets smallint not null default 1;

-- Where `quire analytics tail` stopped reading a file, per project and file identity (device, inode and a
-- hash of the file's first line), so a restart resumes there. Lines read again after a crash between a
-- commit and this row's update carry the same event keys and are stored once.
create table analytics_tail_positions (
  project_id text not null,
  file_identity text not null,
  path text not null,
  position bigint not null,
  lines bigint not null,
  updated_at bigint not null,
  primary key (project_id, file_identity)
);
