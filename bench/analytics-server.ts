/** The analytics benchmark's server process: Quire's API on the configured database, no worker. Prints one JSON line when ready. */
import { bootstrapIfEmpty } from '../src/accounts/bootstrap.ts';
import { loadConfig } from '../src/config/config.ts';
import { startService } from '../src/server/service.ts';

const config = loadConfig(process.env, { logLevel: 'silent', port: 0, analyticsRateLimit: 1_000_000 });
const service = await startService({ config, api: true, worker: false });
// The first process on a database sets up the tenant and prints its project and key; later ones
// (several API processes on one PostgreSQL) print only their URL.
const firstRun = await bootstrapIfEmpty(service.context.storage);
process.stdout.write(`${JSON.stringify({ url: service.url, projectId: firstRun?.projectId, key: firstRun?.key })}\n`);
process.on('SIGTERM', () => service.stop().then(() => process.exit(0)));
