-- The dimension breakdowns (country, browser, OS, device, source, entry page) and visitors filtered by one
-- country or source read per-day records kept beside the agent and referrer ones in
-- analytics_breakdown_days (new kinds, see analytics/model/breakdown-batch.ts). Projects that already have
-- events lack those records for their past days until `quire analytics rebuild` computes them:
-- `dimension_days` = 0 keeps them on the raw events meanwhile; a rebuild sets it to 1.
alter table analytics_projects add column dimension_days integer not null default 1;
update analytics_projects set dimension_days = 0
  where exists (select 1 from analytics_events e where e.project_key = analytics_projects.project_key);
