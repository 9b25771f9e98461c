-- Raw events are found by project and UTC day (then filtered by time): views arrive in time order
-- only roughly, so an index on the exact time took inserts at random places of the current day.
drop index analytics_events_time;
create index analytics_events_day on analytics_events (project_key, (at / 86400000));
