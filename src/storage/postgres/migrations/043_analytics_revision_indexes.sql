-- Queries check which day sets and breakdown days a range holds by their revisions alone (a cached answer, a
-- range or dimension index, value pages). These covering indexes hold only the key and revision, so those reads
-- can be index-only scans instead of visiting each row beside its set (the same migration as SQLite's, where
-- reading the rows' pages cost 15–40 ms of a 90-day query).
create index analytics_day_sets_revisions on analytics_day_sets (project_key, day, class) include (revision);
create index analytics_breakdown_days_revisions on analytics_breakdown_days (project_key, day, kind) include (revision);
