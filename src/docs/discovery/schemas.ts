import { Type } from 'typebox';

/**
 * Mintlify's discovery bodies. Fields they do not name are ignored rather than refused (unlike the
 * admin API): Mintlify's clients send fields of their own, and a client should need only a new base URL.
 */
export const DomainParams = Type.Object({
  domain: Type.String({ minLength: 1, maxLength: 64, description: 'The project id (`prj_…`).' }),
});

export const SearchBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 1000, description: 'What to look for, in words.' }),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Sections returned at most.' })),
  scoreThreshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Sections scoring less are left out.' })),
  filter: Type.Optional(
    Type.Object({
      version: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted; the index has no versions yet, so it filters nothing.' })),
      language: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted; the index has no languages yet, so it filters nothing.' })),
      groups: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100, description: 'Only pages in these navigation groups.' })),
    }),
  ),
});

export const SearchResult = Type.Array(
  Type.Object({
    content: Type.String({ description: 'The matching section’s Markdown.' }),
    path: Type.String({ description: 'The page’s route on the site.' }),
    metadata: Type.Object({
      title: Type.String({ description: 'The page’s title, and the section’s heading after a colon.' }),
      url: Type.String({ description: 'The site URL, the route and `#anchor` for a section.' }),
      anchor: Type.String({ description: 'The section’s anchor; empty for the part before the first heading.' }),
      score: Type.Number({ description: '0..1, best first.' }),
    }),
  }),
);

export const PageBody = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 1000, description: 'A route (`/guides/setup`) or a file path (`guides/setup.mdx`).' }),
});

export const PageResult = Type.Object({
  path: Type.String({ description: 'The page’s route.' }),
  content: Type.String({ description: 'The page’s Markdown.' }),
});
