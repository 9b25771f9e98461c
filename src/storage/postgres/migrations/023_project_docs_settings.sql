-- Docs served to agents and readers: where the docs site lives (null: the project's site surface on
-- Quire), whether its docs answer anonymous requests, and the name of its MCP tools. The MCP name is
-- unique within an organization; existing projects get theirs, from their name, when first read
-- (accounts/mcp-name.ts), since slugging a name is not written the same way in both dialects.
alter table projects add column site_url text;
alter table projects add column docs_public integer not null default 0;
alter table projects add column mcp_name text;
create unique index projects_mcp_name on projects (org_id, mcp_name);

-- Keys are admin keys or assistant keys (`quire_dsc_…`, bound to one project, readable in a web page);
-- an assistant key may be limited to browser origins (comma-separated; null: any origin).
alter table api_keys add column kind text not null default 'admin';
alter table api_keys add column allowed_origins text;
