-- The model the docs assistant answers with (`provider:model`), when it is not the project's model:
-- a fast, cheap model for readers' questions beside a stronger one for agent jobs. Null: the project's
-- model, else QUIRE_MODEL.
alter table projects add column assistant_model text;
