-- Each section's page title and heading as a tsvector of their own (labels A and B, and the project
-- lexeme), with its own GIN index. The search's first tier asks for the query's words in titles and
-- headings only: on `vector` that is a label, which the GIN index does not hold, so PostgreSQL read
-- and decompressed the whole vector of every section holding the words anywhere to check it. On
-- `headings` the index match is exact, and the full vector is read only to rank the sections found.
alter table docs_search add column headings tsvector;

update docs_search f
set headings = setweight(to_tsvector('docs_english', p.title), 'A') || setweight(to_tsvector('docs_english', s.heading), 'B')
  || cast('p' || encode(convert_to(f.project_id, 'UTF8'), 'hex') as tsvector)
from docs_sections s
join docs_pages p on p.id = s.page_id
where s.id = f.section_id;

alter table docs_search alter column headings set not null;

create index docs_search_headings on docs_search using gin (headings);
