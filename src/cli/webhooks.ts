import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import type { Kysely } from 'kysely';
import { findProject } from '../accounts/projects.ts';
import type { Config } from '../config/config.ts';
import { ApiError } from '../http/errors.ts';
import { listDeliveries, redeliver } from '../jobs/webhooks/deliveries.ts';
import { createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, rotateSecret } from '../jobs/webhooks/endpoints.ts';
import { deliveryView, endpointView } from '../jobs/webhooks/view.ts';
import type { Database } from '../storage/schema.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import { withStorage } from './database.ts';
import { CliError, print, table } from './output.ts';

interface Flags {
  project: string;
  json?: boolean;
}

async function projectOf(db: Kysely<Database>, id: string): Promise<ProjectRow> {
  const project = await findProject(db, id);
  if (!project) throw new CliError(`No project has the id ${id}; "quire projects list" shows them.`);
  return project;
}

/** Runs a verb on the project's webhooks; the API's refusals (bad URL, unknown id) become one printed sentence. */
function onProject<T extends Flags>(action: (db: Kysely<Database>, config: Config, project: ProjectRow, flags: T) => Promise<void>) {
  return (flags: T) =>
    withStorage(async ({ db }, config) => {
      try {
        await action(db, config, await projectOf(db, flags.project), flags);
      } catch (error) {
        if (error instanceof ApiError) throw new CliError(error.message);
        throw error;
      }
    });
}

function verb(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description).requiredOption('--project <id>', 'project id (prj_…)').option('--json', 'print JSON');
}

/** `quire webhooks …`: a project's webhook endpoints and their delivery log, straight on the database. */
export function registerWebhooks(program: Command): void {
  const webhooks = topCommand(program, 'webhooks');
  verb(webhooks, 'create', 'add an endpoint; prints its signing secret once')
    .requiredOption('--url <url>', 'http(s) URL that receives the events')
    .option('--events <types>', 'comma-separated event types (default: every type)')
    .option('--description <text>', 'a note to tell endpoints apart')
    .action(
      onProject<Flags & { url: string; events?: string; description?: string }>(async (db, config, project, flags) => {
        const events = flags.events?.split(',').map((type) => type.trim());
        const { endpoint, secret } = await createEndpoint({ db, config }, project, { url: flags.url, events, description: flags.description });
        const view = { ...endpointView(endpoint), secret };
        print(flags, view, () => `Created webhook ${view.id} for ${view.url} (${view.events.join(', ')}).\nSigning secret (shown only this once): ${secret}`);
      }),
    );
  verb(webhooks, 'list', "list the project's endpoints").action(
    onProject(async (db, _config, project, flags) => {
      const views = (await listEndpoints(db, project)).map(endpointView);
      print(flags, views, () => table(views, ['id', 'url', 'events', 'disabledAt', 'disabledReason']));
    }),
  );
  verb(webhooks, 'deliveries', "an endpoint's newest deliveries with their attempts")
    .argument('<webhookId>', 'webhook id (whk_…)')
    .option('--limit <count>', 'how many (1 to 100)', '20')
    .action((webhookId: string, flags: Flags & { limit: string }) =>
      onProject<Flags & { limit: string }>(async (db, _config, project) => {
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new CliError('--limit must be a whole number from 1 to 100.');
        const page = await listDeliveries(db, await findEndpoint(db, project, webhookId), { limit });
        const views = page.deliveries.map(deliveryView);
        const rows = views.map((view) => ({ ...view, durations: view.log.map((attempt) => `${attempt.statusCode ?? 'error'}/${attempt.durationMs}ms`) }));
        print(flags, views, () => table(rows, ['id', 'type', 'status', 'attempts', 'lastStatusCode', 'lastAttemptAt', 'nextAttemptAt', 'durations']));
      })(flags),
    );
  verb(webhooks, 'redeliver', 'send a delivery again now')
    .argument('<webhookId>', 'webhook id (whk_…)')
    .argument('<deliveryId>', 'delivery id (msg_…)')
    .action((webhookId: string, deliveryId: string, flags: Flags) =>
      onProject(async (db, _config, project) => {
        const view = deliveryView(await redeliver(db, await findEndpoint(db, project, webhookId), deliveryId));
        print(flags, view, () => `Delivery ${view.id} is due again; a running Quire worker sends it within QUIRE_WEBHOOK_POLL_MS.`);
      })(flags),
    );
  verb(webhooks, 'rotate-secret', 'make a new signing secret; the previous one also signs for 24 hours')
    .argument('<webhookId>', 'webhook id (whk_…)')
    .action((webhookId: string, flags: Flags) =>
      onProject(async (db, config, project) => {
        const { endpoint, secret } = await rotateSecret({ db, config }, project, webhookId);
        print(flags, { ...endpointView(endpoint), secret }, () => `New signing secret of ${endpoint.id} (shown only this once): ${secret}`);
      })(flags),
    );
  verb(webhooks, 'delete', 'delete an endpoint with its deliveries')
    .argument('<webhookId>', 'webhook id (whk_…)')
    .action((webhookId: string, flags: Flags) =>
      onProject(async (db, _config, project) => {
        await deleteEndpoint(db, project, webhookId);
        print(flags, { deleted: webhookId }, () => `Deleted webhook ${webhookId}.`);
      })(flags),
    );
}
