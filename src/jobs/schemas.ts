import { Type } from 'typebox';
import { ProjectParams } from '../http/schemas.ts';

const dateTime = Type.String({ format: 'date-time' });
/**
 * A string or null, written `type: ["string", "null"]` (JSON Schema 2020-12, OpenAPI 3.1): the
 * response serializer writes such a field directly, where an `anyOf` would be validated per value.
 */
const nullableString = (options: Parameters<typeof Type.String>[0] = {}) => Type.Unsafe<string | null>({ ...Type.String(options), type: ['string', 'null'] });

export const Job = Type.Object({
  id: Type.String({ description: 'Opaque job id (`job_` + ULID).', examples: ['job_01JDQ3M4Z8K9V2N6R5T7W1X0YA'] }),
  status: Type.Union([Type.Literal('active'), Type.Literal('completed'), Type.Literal('archived'), Type.Literal('failed')], {
    description: '`active` while the agent works; `completed` or `failed` when it stops; `archived` after the archive operation.',
  }),
  source: Type.Object({
    repository: Type.String({ description: 'Repository URL as configured on the project.' }),
    ref: nullableString({ description: 'Branch or ref the job started from.' }),
  }),
  model: Type.String({ description: 'Model id the job uses.' }),
  prLink: nullableString({ format: 'uri', description: 'Pull request URL; null while active and when no files changed.' }),
  createdAt: dateTime,
  archivedAt: nullableString({ format: 'date-time' }),
  updatedAt: dateTime,
  error: nullableString({ description: 'Why the job failed; null unless `failed`.' }),
  origin: Type.Union([Type.Literal('api'), Type.Literal('dashboard'), Type.Literal('mcp'), Type.Literal('gap')], {
    description:
      'How the job was created: `api` (the create operation, also through the admin MCP server’s `create_job`), `dashboard`, `mcp` (a session of the admin MCP server, whose agent is the MCP client) or `gap` (started from a docs gap).',
  }),
  draft: Type.Boolean({
    description:
      'Whether the pull request is a draft: asked for (create option `draft`, QUIRE_PR_DRAFT) or because the docs checks still report problems after the repair rounds. Before a run opened one, whether it will be opened as a draft.',
  }),
  problems: Type.Array(
    Type.Object({
      file: Type.String({ description: 'Path relative to the repository root.' }),
      line: Type.Unsafe<number | null>({ type: ['integer', 'null'], description: '1-based line, or null when the problem has none.' }),
      message: Type.String({ description: 'What is wrong, at most 1,000 characters.' }),
    }),
    {
      maxItems: 50,
      description:
        'What the docs checks still report for the pushed change after the repair rounds (the first 50, in the checks’ order; the pull request’s Checks section lists them too); `[]` when none or before a run published.',
    },
  ),
});

export const JobParams = Type.Object({
  projectId: ProjectParams.properties.projectId,
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Job id (`job_…`).' }),
});

export const PromptBody = Type.Object(
  { prompt: Type.String({ minLength: 1, maxLength: 20_000, description: 'The instruction the agent executes.' }) },
  { additionalProperties: false },
);

export const CreateBody = Type.Object(
  {
    prompt: PromptBody.properties.prompt,
    ref: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Branch or ref to start from; default the project’s ref, else the default branch.' }),
    ),
    branch: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Work branch: a valid git branch name of letters, digits, `.`, `_`, `-` and `/` that no other job of the project uses (409) and that does not exist in the repository yet (the job fails). Default `quire/<job id>`.',
      }),
    ),
    draft: Type.Optional(Type.Boolean({ description: 'Open the pull request as draft. Default false.' })),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: '`provider:model` or a model id, among the project’s model and the models the operator allows (QUIRE_ALLOWED_MODELS); any other is 400.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Replaying the same key and body within 24 h returns the same job and is not counted twice.' }),
  ),
});

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '`nextCursor` of the previous page.' })),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('completed'), Type.Literal('archived'), Type.Literal('failed')])),
  },
  { additionalProperties: false },
);

export const JobList = Type.Object({ jobs: Type.Array(Job), nextCursor: nullableString() });

export const Transcript = Type.Object({
  messages: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool'), Type.Literal('event')]),
      content: Type.Object({}, { additionalProperties: true }),
      createdAt: dateTime,
    }),
  ),
});
