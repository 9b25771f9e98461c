-- Docs gaps (docs/gaps.md). A gap's evidence is computed from the raw rows on each read; what is kept
-- here is what a person decided or what happened to it: its stable id, status, the job that should fix
-- it, when the fix reached the project's ref (with the evidence frozen then), and the evidence a
-- dismissal saw, so a dismissed gap comes back only once its evidence doubles.
create table docs_gaps (
  id text primary key,
  project_id text not null,
  kind text not null,
  status text not null,
  job_id text,
  job_commit text,
  fixed_at integer,
  fixed_evidence text,
  dismissed_evidence integer,
  opened_notified_at integer,
  created_at integer not null,
  updated_at integer not null
);
create index docs_gaps_project on docs_gaps (project_id, status);
create index docs_gaps_job on docs_gaps (job_id) where job_id is not null;

-- The grouping keys each gap has been seen under, so a gap keeps its id as its evidence grows or merges.
create table docs_gap_keys (
  project_id text not null,
  key text not null,
  gap_id text not null references docs_gaps (id) on delete cascade,
  primary key (project_id, key)
) without rowid;
create index docs_gap_keys_gap on docs_gap_keys (gap_id);

-- Gaps read only the failures of a range: searches that found nothing, unanswered assistant turns and
-- requests answered 404, each a small part of its table.
create index analytics_searches_no_hits on analytics_searches (project_key, at) where hits = 0;
create index analytics_events_not_found on analytics_events (project_key, at) where status = 404;
create index assistant_turns_unanswered on assistant_turns (project_id, created_at) where resolution = 'unanswered';
