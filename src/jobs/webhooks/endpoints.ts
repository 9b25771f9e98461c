import type { Kysely } from 'kysely';
import type { Config } from '../../config/config.ts';
import { conflict, invalidRequest, notFound } from '../../http/errors.ts';
import { isId, newId } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { WebhookEndpointRow } from '../../storage/tables/webhooks.ts';
import { parseEndpointUrl, vetEndpoint, WebhookAddressError } from './address.ts';
import { isWebhookEventType, webhookEventTypes, type WebhookEventType } from './events.ts';
import { parkDeliveries } from './record.ts';
import { newSecret, storedSecret } from './signing.ts';

/** What the endpoint functions need: the database and the settings (the API's context and the CLI both have them). */
export interface WebhookDependencies {
  db: Kysely<Database>;
  config: Config;
}

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/** After a rotation the previous secret still signs this long, so receivers can switch without missing a delivery. */
const rotationGraceMs = 24 * 3_600_000;
const maxEndpointsPerProject = 100;

async function checkedUrl(config: Config, text: string): Promise<string> {
  try {
    const url = parseEndpointUrl(text);
    await vetEndpoint(url, config.webhooksAllowPrivate);
    return url.toString();
  } catch (error) {
    if (error instanceof WebhookAddressError) throw invalidRequest(error.message, [{ path: '/url', message: error.message }]);
    throw error;
  }
}

function checkedEvents(events: string[]): WebhookEventType[] {
  const unknown = events.find((event) => !isWebhookEventType(event));
  if (unknown !== undefined || events.length === 0) {
    const message = `events must list one or more of ${webhookEventTypes.join(', ')}${unknown === undefined ? '' : `; "${unknown}" is not one`}.`;
    throw invalidRequest(message, [{ path: '/events', message }]);
  }
  return [...new Set(events)] as WebhookEventType[];
}

export async function createEndpoint(
  { db, config }: WebhookDependencies,
  project: ProjectRow,
  input: EndpointInput & { url: string },
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const url = await checkedUrl(config, input.url);
  const events = input.events === undefined ? [...webhookEventTypes] : checkedEvents(input.events);
  const count = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('project_id', '=', project.id)
    .executeTakeFirstOrThrow();
  if (Number(count.count) >= maxEndpointsPerProject)
    throw conflict(`A project may have ${maxEndpointsPerProject} webhook endpoints; delete one it no longer needs first.`);
  const secret = newSecret();
  const now = Date.now();
  const endpoint: WebhookEndpointRow = {
    id: newId('whk'),
    org_id: project.org_id,
    project_id: project.id,
    url,
    events: JSON.stringify(events),
    description: input.description ?? null,
    secret: storedSecret(config, secret),
    previous_secret: null,
    previous_secret_until: null,
    failing_since: null,
    disabled_at: input.enabled === false ? now : null,
    disabled_reason: input.enabled === false ? 'Created disabled.' : null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('webhook_endpoints').values(endpoint).execute();
  return { endpoint, secret };
}

export function listEndpoints(db: Kysely<Database>, project: ProjectRow): Promise<WebhookEndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
}

/** The project's endpoint `webhookId`; 404 for any other id, whoever owns it. */
export async function findEndpoint(db: Kysely<Database>, project: ProjectRow, webhookId: string): Promise<WebhookEndpointRow> {
  const endpoint = isId(webhookId, 'whk')
    ? await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', webhookId).where('project_id', '=', project.id).executeTakeFirst()
    : undefined;
  if (!endpoint) throw notFound(`Webhook ${webhookId}`);
  return endpoint;
}

/** Changes what is given; `enabled: true` turns on an endpoint that was disabled and forgets its failing streak. */
export async function updateEndpoint(
  { db, config }: WebhookDependencies,
  project: ProjectRow,
  webhookId: string,
  input: EndpointInput,
): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(db, project, webhookId);
  const now = Date.now();
  const changes: Partial<WebhookEndpointRow> = { updated_at: now };
  if (input.url !== undefined) changes.url = await checkedUrl(config, input.url);
  if (input.events !== undefined) changes.events = JSON.stringify(checkedEvents(input.events));
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled === true) Object.assign(changes, { disabled_at: null, disabled_reason: null, failing_since: null });
  if (input.enabled === false && endpoint.disabled_at === null) Object.assign(changes, { disabled_at: now, disabled_reason: 'Disabled by request.' });
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('webhook_endpoints').set(changes).where('id', '=', endpoint.id).execute();
    if (input.enabled === false) await parkDeliveries(trx, endpoint.id);
    // Deliveries parked while it was off are due again; those past their retry window fail at their next failure.
    if (input.enabled === true) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now })
        .where('endpoint_id', '=', endpoint.id)
        .where('status', '=', 'pending')
        .execute();
    }
  });
  return { ...endpoint, ...changes };
}

/** A new secret, shown once; the previous one keeps signing beside it for a day. */
export async function rotateSecret(
  { db, config }: WebhookDependencies,
  project: ProjectRow,
  webhookId: string,
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const endpoint = await findEndpoint(db, project, webhookId);
  const secret = newSecret();
  const now = Date.now();
  const changes = { secret: storedSecret(config, secret), previous_secret: endpoint.secret, previous_secret_until: now + rotationGraceMs, updated_at: now };
  await db.updateTable('webhook_endpoints').set(changes).where('id', '=', endpoint.id).execute();
  return { endpoint: { ...endpoint, ...changes }, secret };
}

/** Deletes the endpoint with its deliveries and their log. */
export async function deleteEndpoint(db: Kysely<Database>, project: ProjectRow, webhookId: string): Promise<void> {
  const endpoint = await findEndpoint(db, project, webhookId);
  await db.deleteFrom('webhook_endpoints').where('id', '=', endpoint.id).execute();
}
