-- The docs index: each project's pages and their sections, versioned by build generation. A row is
-- visible at generation G when first_generation <= G and (retired_generation is null or
-- retired_generation > G); docs_state.generation names the generation readers see, so a build
-- writes its rows beside the current ones and one update of docs_state switches to them. Generation
-- numbers are never reused (started_generation), so a builder that was replaced cannot write into
-- the build that replaced it.
create table docs_state (
  project_id text primary key,
  generation integer not null,
  built_commit text,
  built_at integer,
  status text not null,
  error text,
  pages integer not null,
  sections integer not null,
  building_generation integer,
  started_generation integer not null,
  building_commit text,
  building_started_at integer
);

create table docs_pages (
  id integer primary key,
  project_id text not null,
  first_generation integer not null,
  retired_generation integer,
  path text not null,
  route text not null,
  title text not null,
  description text,
  keywords text not null,
  group_name text not null,
  position integer not null,
  hidden integer not null,
  markdown text not null,
  source_hash text not null
);
create index docs_pages_path on docs_pages (project_id, path, first_generation);
create index docs_pages_route on docs_pages (project_id, route, first_generation);
create index docs_pages_navigation on docs_pages (project_id, position, path);
create index docs_pages_retired on docs_pages (project_id, retired_generation) where retired_generation is not null;

create table docs_sections (
  id integer primary key,
  page_id integer not null,
  project_id text not null,
  first_generation integer not null,
  retired_generation integer,
  ordinal integer not null,
  anchor text not null,
  heading text not null,
  level integer not null,
  markdown text not null,
  text text not null
);
create index docs_sections_page on docs_sections (page_id, ordinal);
create index docs_sections_generation on docs_sections (project_id, first_generation);
create index docs_sections_retired on docs_sections (project_id, retired_generation) where retired_generation is not null;

-- Full-text index of sections (rowid = docs_sections.id): contentless, since the text is in
-- docs_sections already, with deletes allowed so purged sections leave it. Porter stemming over
-- unicode61 lets `configure` find `configuration`; column weights are given to bm25() by the query.
-- `project` holds one word naming the section's project, so a search matches within its project
-- inside the index rather than ranking every project's sections (see search/engines/sqlite.ts).
create virtual table docs_search using fts5 (
  project,
  title,
  heading,
  body,
  content = '',
  contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
