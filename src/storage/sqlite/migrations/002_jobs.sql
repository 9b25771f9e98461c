-- Agent jobs, their transcripts, the durable queue that runs them, rate-limit hits and idempotency keys.
create table jobs (
  id text primary key,
  org_id text not null references organizations (id),
  project_id text not null references projects (id),
  status text not null,
  prompt text not null,
  repository text not null,
  ref text,
  model text not null,
  branch text not null,
  pr_link text,
  error text,
  runner_state text,
  input_tokens integer not null default 0,
  output_tokens integer not null default 0,
  created_at integer not null,
  updated_at integer not null,
  archived_at integer
);
create index jobs_project on jobs (project_id, id);

create table job_messages (
  job_id text not null references jobs (id),
  seq integer not null,
  role text not null,
  content text not null,
  created_at integer not null,
  primary key (job_id, seq)
);

create table job_queue (
  id text primary key,
  job_id text not null references jobs (id),
  attempts integer not null default 0,
  max_attempts integer not null,
  available_at integer not null,
  locked_by text,
  locked_until integer,
  created_at integer not null
);
create index job_queue_ready on job_queue (available_at);
create index job_queue_job on job_queue (job_id);

create table rate_limit_buckets (
  bucket text primary key
);

create table rate_limit_hits (
  bucket text not null,
  at integer not null
);
create index rate_limit_hits_bucket on rate_limit_hits (bucket, at);

create table idempotency_keys (
  project_id text not null,
  scope text not null,
  key text not null,
  request_hash text not null,
  job_id text not null,
  created_at integer not null,
  primary key (project_id, scope, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
