-- Small analytics facts shared by every process, by key. `classification_version`: the version of the
-- AI agent lists the day sets were built with; a server that starts with other lists reclassifies
-- history from the raw events and then stores its own version (analytics/fold/reclassify.ts).
create table analytics_settings (
  key text primary key,
  value text not null
);
