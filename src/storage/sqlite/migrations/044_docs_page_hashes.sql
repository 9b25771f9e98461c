-- An incremental docs build reads every page's path and source hash of the current generation to
-- decide what changed. docs_pages keeps each page's Markdown in its row, before the hash, so that
-- read walked each row's overflow pages: 0.2-0.6 s for 10,000 pages. This covering index holds the
-- path, the generations and the hash alone, a few pages for the whole site.
create index docs_pages_hashes on docs_pages (project_id, path, first_generation, retired_generation, source_hash);
