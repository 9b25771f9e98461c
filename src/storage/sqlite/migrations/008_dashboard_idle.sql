-- When a dashboard session was last used, so an idle session ends before its absolute expiry.
alter table dashboard_sessions add column last_seen_at integer;
update dashboard_sessions set last_seen_at = created_at;
