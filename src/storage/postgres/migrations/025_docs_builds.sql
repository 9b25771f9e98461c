-- Docs builds as durable work, one row per project: a request raises requested_seq, a builder that
-- claims the row takes it as claimed_seq under a lease (locked_by, locked_until), and finishing sets
-- finished_seq to it. A build is queued or running while requested_seq > finished_seq, so requests
-- arriving meanwhile coalesce into one more build. An expired lease is claimed again (attempts
-- counts the claims of one request). The row also keeps what the last finished build looked at
-- (commit, docs path, per-page errors), the docs path of the generation readers see, and when the
-- poll loop may next ask the remote.
create table docs_builds (
  project_id text collate "C" primary key,
  requested_seq bigint not null,
  claimed_seq bigint not null,
  finished_seq bigint not null,
  requested_at bigint not null,
  attempts bigint not null,
  locked_by text,
  locked_until bigint,
  last_commit text,
  last_docs_path text,
  built_docs_path text,
  page_errors text not null,
  finished_at bigint,
  poll_after bigint,
  poll_failures bigint not null
);
create index docs_builds_pending on docs_builds (locked_until) where requested_seq > finished_seq;
