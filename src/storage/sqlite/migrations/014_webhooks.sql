-- Webhook endpoints of a project, the deliveries queued for them (written in the transaction of the job
-- change that causes them) and every attempt of each delivery, which is the delivery log.
create table webhook_endpoints (
  id text primary key,
  org_id text not null references organizations (id),
  project_id text not null references projects (id),
  url text not null,
  events text not null,
  description text,
  secret text not null,
  previous_secret text,
  previous_secret_until integer,
  failing_since integer,
  disabled_at integer,
  disabled_reason text,
  created_at integer not null,
  updated_at integer not null
);
create index webhook_endpoints_project on webhook_endpoints (project_id, id);

create table webhook_deliveries (
  id text primary key,
  endpoint_id text not null references webhook_endpoints (id) on delete cascade,
  project_id text not null references projects (id),
  type text not null,
  payload text not null,
  status text not null,
  attempts integer not null default 0,
  next_attempt_at integer,
  retrying_since integer not null,
  locked_by text,
  locked_until integer,
  last_status_code integer,
  last_attempt_at integer,
  created_at integer not null
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, id);
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, id);

create table webhook_attempts (
  delivery_id text not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null,
  started_at integer not null,
  status_code integer,
  duration_ms integer not null,
  error text,
  response_excerpt text,
  sent_by text not null,
  primary key (delivery_id, attempt)
);
