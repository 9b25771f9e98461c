-- How a job was created: `api` (the create operation), `dashboard`, `mcp` (a session of the admin MCP
-- server, whose agent is the MCP client) or `gap` (a fix started from a docs gap). Jobs created before
-- this column existed were all created through the API or the dashboard; `api` stands for both.
alter table jobs add column origin text not null default 'api';
