-- Whether a view's claim to be a known agent was checked at ingestion: 0 unknown (nothing to check, or
-- no way to), 1 verified (its IP is in the operator's published ranges, or a valid Web Bot Auth
-- signature), 2 spoofed (it claims an operator whose ranges it is outside). Spoofed views count nowhere.
alter table analytics_events add column verification smallint not null default 0;
