-- Visits exact whatever the order views arrive in (analytics/fold/visit-repair.ts). Ingestion still decides
-- each view's entry flag and visit source from what its process remembers, and lists the views it cannot
-- be sure of (`analytics_pending.visits`: arrived out of time order, or another process wrote the project
-- since, which `analytics_projects.visit_writer` tells). The fold recomputes those visitors' visits from
-- the raw events and corrects the raw events and the per-day records. Doubts the fold has taken but not
-- repaired yet wait in `analytics_visit_doubts`; `analytics_fold_turns` serializes a project's folds.
alter table analytics_pending add column visits blob;
alter table analytics_projects add column visit_writer text;

create table analytics_visit_doubts (
  id integer primary key autoincrement,
  project_key integer not null,
  visits blob not null
);
create index analytics_visit_doubts_project on analytics_visit_doubts (project_key, id);

create table analytics_fold_turns (
  project_key integer primary key,
  turns integer not null
);
