/**
 * The docs benchmark's server process: Quire's API and worker (the docs builder runs there) on the configured
 * database, its organization allowed the benchmark's repositories folder (QUIRE_BENCH_REPOSITORIES). Prints one
 * JSON line when ready.
 */
import { bootstrapIfEmpty } from '../src/accounts/bootstrap.ts';
import { grantLocal } from '../src/accounts/local-grants.ts';
import { loadConfig } from '../src/config/config.ts';
import { startService } from '../src/server/service.ts';

const plenty = 100_000_000;
const config = loadConfig(process.env, {
  logLevel: 'silent',
  port: 0,
  // The benchmark measures speed, not the limits: none of them may answer 429 during a run.
  discoveryRateLimit: plenty,
  docsMcpRateLimitPerAddress: plenty,
  docsMcpRateLimitPerProject: plenty,
  docsPollSeconds: 86_400,
});
const service = await startService({ config, api: true, worker: true });
const firstRun = await bootstrapIfEmpty(service.context.storage);
if (!firstRun) throw new Error('the docs benchmark needs an empty database');
await grantLocal(service.context.storage.db, config.dataDir, firstRun.orgId, process.env.QUIRE_BENCH_REPOSITORIES!);
process.stdout.write(`${JSON.stringify({ url: service.url, projectId: firstRun.projectId, key: firstRun.key })}\n`);
process.on('SIGTERM', () => service.stop().then(() => process.exit(0)));
