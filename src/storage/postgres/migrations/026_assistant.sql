-- The docs assistant's threads and turns. A thread's key is stored as its SHA-256 only (the reader
-- holds the key), and the client's fingerprint `fp` as a keyed hash with the project's analytics
-- secret, as visitor ids are. A turn is stored only when it ended with an answer; failed turns
-- (a provider error, a limit) are logged and counted in metrics, never stored here.
create table assistant_threads (
  id text collate "C" primary key,
  project_id text collate "C" not null,
  key_hash text not null,
  fingerprint text,
  created_at bigint not null
);
create index assistant_threads_project on assistant_threads (project_id, created_at);

create table assistant_turns (
  id text collate "C" primary key,
  thread_id text collate "C" not null references assistant_threads (id) on delete cascade,
  project_id text collate "C" not null,
  query text not null,
  response text not null,
  response_type text not null,
  resolution text not null,
  sources text not null,
  query_category text,
  current_path text,
  caller text not null,
  created_at bigint not null
);
create index assistant_turns_project on assistant_turns (project_id, created_at, id);
create index assistant_turns_thread on assistant_turns (thread_id, created_at, id);
