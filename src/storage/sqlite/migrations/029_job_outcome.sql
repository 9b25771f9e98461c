-- What a job's last finished run left on its pull request: `pr_draft` 1 when the pull request is a draft
-- (asked for, or because the docs checks still fail), 0 when ready, null before a run published one;
-- `problems` the checks' remaining problems as JSON (`[{"file", "line", "message"}]`, at most 50) and
-- `problem_count` how many there were in all; null before a run published.
alter table jobs add column pr_draft integer;
alter table jobs add column problems text;
alter table jobs add column problem_count integer;
