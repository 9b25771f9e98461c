import { Type } from 'typebox';
import { ProjectParams } from '../../http/schemas.ts';

const Kind = (description?: string) =>
  Type.Union([Type.Literal('vercel'), Type.Literal('cloudflare'), Type.Literal('netlify'), Type.Literal('ndjson')], description ? { description } : {});

export const DrainParams = Type.Object({
  projectId: ProjectParams.properties.projectId,
  drainId: Type.String({ minLength: 1, maxLength: 64, description: 'Drain id (`drn_…`).' }),
});

export const NewDrainBody = Type.Object(
  {
    kind: Kind('The host that posts to the drain: `vercel`, `cloudflare` (Logpush), `netlify`, or `ndjson` (any sender of events API events).'),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A label for people.' })),
    verifyToken: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Vercel only: the verification code Vercel shows, answered in the `x-vercel-verify` header.' }),
    ),
  },
  { additionalProperties: false },
);

const DrainFields = {
  id: Type.String(),
  kind: Kind(),
  name: Type.Union([Type.String(), Type.Null()]),
  url: Type.String({ description: 'Where the host posts its log batches.' }),
  createdAt: Type.String({ format: 'date-time' }),
};

export const CreatedDrain = Type.Object({
  ...DrainFields,
  secret: Type.String({ description: 'Shown only in this answer: Vercel signs with it; other hosts send it as `Authorization: Bearer` or `?secret=`.' }),
});
export const DrainList = Type.Object({ drains: Type.Array(Type.Object(DrainFields)) });

export const DrainResult = Type.Object({
  accepted: Type.Integer({ minimum: 0, description: 'Page views stored from this batch.' }),
  duplicates: Type.Integer({ minimum: 0, description: 'Records stored before (the host sent the batch again), not counted twice.' }),
  skipped: Type.Integer({ minimum: 0, description: 'Records that are not page views or could not be read.' }),
  reasons: Type.Record(Type.String(), Type.Integer(), { description: 'Skipped records by reason.' }),
  notes: Type.Record(Type.String(), Type.Integer(), {
    description: 'Views kept with a change, by reason: a client IP that is not an address dropped, a path that is not valid percent-encoding kept escaped.',
  }),
});
