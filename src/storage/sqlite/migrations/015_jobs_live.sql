-- Create options and cancellation. `draft`: 1 when the pull request is to be opened as draft.
-- `cancelled_at`/`cancelled_by`: when and by whom the job's last run was cancelled (null otherwise).
alter table jobs add column draft integer not null default 0;
alter table jobs add column cancelled_at integer;
alter table jobs add column cancelled_by text;
-- A work branch belongs to one job of the project (the default `quire/<job id>` always does).
create unique index jobs_project_branch on jobs (project_id, branch);
