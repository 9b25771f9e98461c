import { Type } from 'typebox';

const nullableText = (description: string, maxLength = 2000) => Type.Union([Type.String({ minLength: 1, maxLength }), Type.Null()], { description });

/** The settings a key may change; what each takes is checked by the same rules as the CLI and the dashboard. */
const writable = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Shown on the dashboard.' }),
  repository: nullableText('The documentation repository: an https:// URL, a file:// URL or an absolute path the organization may reach; null clears it.'),
  ref: nullableText('Branch jobs start from and docs are built from (a git branch or tag name); null: the repository default branch.', 200),
  docsPath: nullableText('Folder of the docs inside the repository; null: the whole repository.', 500),
  model: nullableText('`provider:model` of this project; null: the server default (QUIRE_MODEL).', 200),
  assistantModel: nullableText('`provider:model` the docs assistant answers with; null: the project’s `model` (then QUIRE_MODEL).', 200),
  trackerDomains: Type.Array(Type.String({ maxLength: 253 }), {
    maxItems: 100,
    description: 'Host names the browser tracker may report from (`docs.example.com`, `*.example.com`).',
  }),
  skipAssets: Type.Boolean({ description: 'Whether requests for static assets from logs, drains and the proxy are left out of the views.' }),
  assetExtensions: Type.Array(Type.String({ maxLength: 9 }), {
    maxItems: 100,
    description: 'Changes to the asset extensions: `+ext` also an asset, `-ext` a page.',
  }),
  siteUrl: nullableText(
    'The public address of the docs site, used in citations and links; null: the project’s site surface on Quire, `{QUIRE_PUBLIC_URL}/sites/{projectId}`.',
  ),
  docsPublic: Type.Boolean({ description: 'Whether the site surface, search and the search MCP server answer anonymous requests.' }),
  mcpName: Type.String({ description: 'Names the MCP tools (`search_{mcpName}`): `[a-z0-9_]{1,40}`, unique in the organization.' }),
};

export const UpdateProjectBody = Type.Partial(Type.Object(writable), { additionalProperties: false, minProperties: 1 });

export const ProjectSettingsResponse = Type.Object({
  id: Type.String(),
  ...writable,
  repository: Type.Union([Type.String(), Type.Null()]),
  ref: Type.Union([Type.String(), Type.Null()]),
  docsPath: Type.Union([Type.String(), Type.Null()]),
  model: Type.Union([Type.String(), Type.Null()]),
  assistantModel: Type.Union([Type.String(), Type.Null()]),
  siteUrl: Type.Union([Type.String(), Type.Null()], { description: 'The address set, or null for the default (the project’s site surface on Quire).' }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const ProjectReadinessResponse = Type.Object({
  ready: Type.Boolean({ description: 'Whether every check passes: agent jobs can run.' }),
  checks: Type.Array(
    Type.Object({
      name: Type.Union([Type.Literal('repository'), Type.Literal('model'), Type.Literal('provider'), Type.Literal('endpoint'), Type.Literal('codeHost')], {
        description: 'Which check: `endpoint` is the one-token call to the model.',
      }),
      label: Type.String({ description: 'The check as the dashboard names it.' }),
      ok: Type.Boolean(),
      detail: Type.String({ description: 'What is set when the check passes; what to do when it does not.' }),
      ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'How long the model call took (`endpoint`); null for the other checks.' }),
    }),
  ),
});
