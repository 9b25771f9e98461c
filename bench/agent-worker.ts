/**
 * Quire with the real agent (API and a worker) in its own process, so the agent benchmark can read
 * the worker's memory from outside. Configured entirely by environment variables; prints one JSON
 * line with the URL, project and key once ready.
 */
import { createKey } from '../src/accounts/keys.ts';
import { createOrganization } from '../src/accounts/organizations.ts';
import { createProject } from '../src/accounts/projects.ts';
import { loadConfig } from '../src/config/config.ts';
import { startService } from '../src/server/service.ts';

const config = loadConfig(process.env, { logLevel: 'silent', port: 0 });
const service = await startService({ config, api: true, worker: true });
const { db } = service.context.storage;
const organization = await createOrganization(db, 'Bench');
const project = await createProject(db, organization.id, { name: 'Bench', repository: process.env.BENCH_REPOSITORY!, ref: 'main' });
const { key } = await createKey(db, organization.id);
process.stdout.write(`${JSON.stringify({ url: service.url, projectId: project.id, key })}\n`);
process.on('SIGTERM', () => service.stop().then(() => process.exit(0)));
