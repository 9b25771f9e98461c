-- Each key-generation form the dashboard renders carries a one-time id; a form sent again (a
-- reload, a double click) finds its id here and does not generate a second key.
create table dashboard_form_uses (
  session_id text not null references dashboard_sessions (id) on delete cascade,
  form_id text not null,
  created_at integer not null,
  primary key (session_id, form_id)
);
