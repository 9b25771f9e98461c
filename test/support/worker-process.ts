/**
 * A worker in its own process. It prints "claimed <job id>" when it starts a job, then:
 * - by default (crash tests) runs a runner that never finishes, until the test kills it;
 * - with QUIRE_TEST_WORKER_STEPS=n, records n assistant messages ("step 1" …) 50 ms apart, prints
 *   "working <job id>", and waits mid-step until its run is aborted (a cancel), then prints
 *   "aborted <job id>"; a job whose prompt is "finish" completes after its steps instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { relayRecordedRows } from '../../src/jobs/events/relay.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openStorage } from '../../src/storage/open.ts';
import type { JobRun, RunOutcome } from '../../src/jobs/runner.ts';

const config = loadConfig();
const storage = await openStorage(config);
const steps = Number(process.env.QUIRE_TEST_WORKER_STEPS ?? '0');
// As `quire worker` does: other processes' event streams hear of the rows it records (PostgreSQL).
relayRecordedRows(storage, pino({ level: 'silent' }));

async function stepping(run: JobRun): Promise<RunOutcome> {
  for (let step = 1; step <= steps; step++) {
    await run.record('assistant', { text: `step ${step}` });
    await sleep(50);
  }
  if (run.prompt === 'finish') return { prLink: null };
  process.stdout.write(`working ${run.job.id}\n`);
  await new Promise((_resolve, reject) =>
    run.signal.addEventListener('abort', () => {
      process.stdout.write(`aborted ${run.job.id}\n`);
      reject(run.signal.reason as Error);
    }),
  );
  return { prLink: null };
}

const worker = new Worker({
  storage,
  logger: pino({ level: 'silent' }),
  concurrency: 1,
  leaseMs: config.jobLeaseSeconds * 1000,
  pollMs: 50,
  cancelPollMs: config.jobCancelPollMs,
  runner: {
    run: (run) => {
      process.stdout.write(`claimed ${run.job.id}\n`);
      return steps > 0 ? stepping(run) : new Promise(() => {});
    },
  },
});
worker.start();
