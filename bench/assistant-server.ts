/**
 * The assistant benchmark's Quire process: API and worker (the docs builder) on the configured database, the
 * model QUIRE_MODEL at OPENAI_BASE_URL (the benchmark's scripted model), its organization allowed the
 * benchmark's repositories folder (QUIRE_BENCH_REPOSITORIES), and no limit that could answer 429 during a run.
 * Prints one JSON line when ready.
 */
import { bootstrapIfEmpty } from '../src/accounts/bootstrap.ts';
import { grantLocal } from '../src/accounts/local-grants.ts';
import { loadConfig } from '../src/config/config.ts';
import { startService } from '../src/server/service.ts';

const plenty = 100_000_000;
const config = loadConfig(process.env, {
  logLevel: 'silent',
  port: 0,
  assistantRateLimit: plenty,
  assistantRateLimitPerAddress: plenty,
  discoveryRateLimit: plenty,
  docsPollSeconds: 86_400,
});
const service = await startService({ config, api: true, worker: true });
const firstRun = await bootstrapIfEmpty(service.context.storage);
if (!firstRun) throw new Error('the assistant benchmark needs an empty database');
await grantLocal(service.context.storage.db, config.dataDir, firstRun.orgId, process.env.QUIRE_BENCH_REPOSITORIES!);
process.stdout.write(`${JSON.stringify({ url: service.url, projectId: firstRun.projectId, key: firstRun.key })}\n`);
process.on('SIGTERM', () => service.stop().then(() => process.exit(0)));
