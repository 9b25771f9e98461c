-- Who sent a search or feedback, so docs gaps can count distinct people and agents: the dense visitor
-- id of the sender's keyed hash (analytics_visitors, as views store it; never the IP) and the class its
-- user agent gives (0 human, 1 ai, 2 excluded). Both null for events that named no visitor.
alter table analytics_feedback add column visitor_id bigint, add column visitor_class smallint;
alter table analytics_searches add column visitor_id bigint, add column visitor_class smallint;
-- Distinct senders over a range: feedback has no (project, time) index of its own.
create index analytics_feedback_visitors on analytics_feedback (project_key, at) where visitor_id is not null;
