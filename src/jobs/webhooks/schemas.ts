import { Type } from 'typebox';
import { ProjectParams } from '../../http/schemas.ts';
import { webhookEventTypes } from './events.ts';

const dateTime = Type.String({ format: 'date-time' });
const nullable = <T extends { type: string }>(schema: T) => Type.Unsafe<unknown>({ ...schema, type: [schema.type, 'null'] });
const EventType = Type.Union(
  webhookEventTypes.map((type) => Type.Literal(type)),
  { description: 'An event type.' },
);
const Events = Type.Array(EventType, { minItems: 1, maxItems: webhookEventTypes.length * 2, description: 'Event types the endpoint receives.' });
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'http(s) URL that receives the POSTs; its host must resolve to public addresses.' });
const Description = Type.String({ maxLength: 500 });

export const WebhookParams = Type.Object({
  projectId: ProjectParams.properties.projectId,
  webhookId: Type.String({ minLength: 1, maxLength: 64, description: 'Webhook id (`whk_…`).' }),
});
export const DeliveryParams = Type.Object({
  ...WebhookParams.properties,
  deliveryId: Type.String({ minLength: 1, maxLength: 64, description: 'Delivery id (`msg_…`), also the `webhook-id` header of its attempts.' }),
});

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Type.Optional(Events), description: Type.Optional(Description) },
  { additionalProperties: false },
);
export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(nullable(Description)),
    enabled: Type.Optional(Type.Boolean({ description: '`true` turns on a disabled endpoint (deliveries still pending resume); `false` turns it off.' })),
  },
  { additionalProperties: false },
);

const webhookFields = {
  id: Type.String({ description: 'Opaque webhook id (`whk_` + ULID).' }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: nullable(Type.String()),
  createdAt: dateTime,
  updatedAt: dateTime,
  disabledAt: nullable(Type.String({ format: 'date-time' })),
  disabledReason: nullable(Type.String({ description: 'Why the endpoint is disabled, and how to turn it on again.' })),
};
export const Webhook = Type.Object(webhookFields);
export const WebhookWithSecret = Type.Object({
  ...webhookFields,
  secret: Type.String({ description: 'Signing secret (`whsec_…`): shown only in this answer. Verify deliveries with it.' }),
});
export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });

export const Delivery = Type.Object({
  id: Type.String(),
  type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastStatusCode: nullable(Type.Integer()),
  lastAttemptAt: nullable(Type.String({ format: 'date-time' })),
  nextAttemptAt: nullable(Type.String({ format: 'date-time' })),
  createdAt: dateTime,
  log: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      at: dateTime,
      statusCode: nullable(Type.Integer()),
      durationMs: Type.Integer(),
      error: nullable(Type.String()),
      response: nullable(Type.String({ description: 'The first 512 bytes of the answer.' })),
    }),
    { description: 'Every attempt, oldest first (the newest 50).' },
  ),
});
export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery), nextCursor: nullable(Type.String()) });
export const DeliveryQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '`nextCursor` of the previous page.' })),
  },
  { additionalProperties: false },
);
