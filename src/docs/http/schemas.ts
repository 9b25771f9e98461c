import { Type } from 'typebox';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const DocsStatusResponse = Type.Object({
  status: Type.Union([Type.Literal('none'), Type.Literal('building'), Type.Literal('ready'), Type.Literal('failed')], {
    description:
      '`none` before the first build completes; `building` while a build is queued or running (the previous generation answers meanwhile); `ready`; `failed` when the last build failed (`commit` and `pages` still describe the generation that answers).',
  }),
  commit: nullable(Type.String({ description: 'The commit the answering generation was built from.' })),
  builtAt: nullable(Type.String({ format: 'date-time' })),
  pages: Type.Integer(),
  sections: Type.Integer(),
  error: nullable(Type.String({ description: 'Why the last build failed.' })),
  pageErrors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
    description:
      'Pages the last completed build could not index as they are (at most 300): too large, not UTF-8, a link out of the repository, a compile error.',
  }),
});

export const PagesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
  },
  { additionalProperties: false },
);

export const PagesResponse = Type.Object({
  pages: Type.Array(
    Type.Object({
      path: Type.String({ description: 'File path in the repository.' }),
      route: Type.String(),
      url: Type.String({ description: 'The page on the docs site: the project’s `siteUrl` (default its site surface on Quire) and the route.' }),
      title: Type.String(),
      description: nullable(Type.String()),
      group: Type.String({ description: 'The outermost navigation group holding the page (`{tab} / {group}` with several tabs), or `Pages`.' }),
    }),
  ),
  hasMore: Type.Boolean(),
});
