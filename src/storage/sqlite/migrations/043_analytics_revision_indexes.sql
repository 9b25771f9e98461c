-- Queries check which day sets and breakdown days a range holds by their revisions alone (a cached answer, a
-- range or dimension index, value pages). Both tables keep each row's blob beside its key, so reading the
-- revisions of 90 days read a leaf page or more per row, a few hundred pages out of the page cache: 15–40 ms
-- of a query. These covering indexes hold only the key and revision, a few pages for the whole range.
create index analytics_day_sets_revisions on analytics_day_sets (project_key, day, class, revision);
create index analytics_breakdown_days_revisions on analytics_breakdown_days (project_key, day, kind, revision);
