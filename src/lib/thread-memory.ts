import type { ResourceLimits } from 'node:worker_threads';

/**
 * How large V8 lets each thread's young generation grow (the space new objects are made in, swept at
 * every minor collection). V8 sizes it from the machine's memory: on a 24 GiB machine it reaches
 * 128 MiB (two 64 MiB semi-spaces) in the event loop and in every long-lived thread alike, and a
 * busy thread keeps it. What ingestion makes per batch (a batch's events, rows and statements' parameters)
 * dies young in a far smaller space.
 *
 * Measured with `QUIRE_BENCH_SCALE=0.5 QUIRE_BENCH_ANALYTICS=ingest npm run bench -- analytics`
 * (5,000,000 views), V8's sizes and these taking turns: the server's peak memory 1,018–1,046 MiB
 * against 723–776 MiB; events/s 85,740 → 84,186, 84,549 → 81,679 (8 MiB semi-spaces), 97,840 →
 * 90,630, 78,304 → 81,397 (16 MiB): within the run-to-run noise of this machine. The threads alone
 * limited (4 MiB semi-spaces) gave 830–849 MiB. `docs/operations.md` says how to set the event loop's.
 */
export const semiSpaceMb = 16;

/** The limits of the long-lived threads (SQLite's writing and reading threads, the parse threads, the proxy's recorder). */
export const longLivedThreadLimits: ResourceLimits = { maxYoungGenerationSizeMb: semiSpaceMb * 3 };

/**
 * The event loop's limit is a flag of the Node process (it is fixed when the process starts): `npm
 * start`, the Docker image and the systemd unit pass it, as the benchmarks' servers do.
 */
export const semiSpaceFlag = `--max-semi-space-size=${semiSpaceMb}`;
