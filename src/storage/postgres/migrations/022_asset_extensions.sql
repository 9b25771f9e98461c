-- Per project, changes to the static-asset rule's extension list (analytics/ingest/assets.ts): space-separated
-- `+ext` (also an asset, such as `+pdf`) and `-ext` (a page after all, such as `-svg`); empty keeps the list.
alter table projects add column asset_extensions text not null default '';
