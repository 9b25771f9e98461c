import type { ResourceLimits } from 'node:worker_threads';

/**
 * How large V8 lets a long-lived thread's young generation grow (the space new objects are made in,
 * swept at every minor collection). V8 sizes it from the machine's memory: on a 24 GiB machine it
 * reaches 128 MiB (two 64 MiB semi-spaces) in every thread, and a busy thread keeps it. What the
 * threads make per batch (a body's parsed events, a statement's rows) dies young in a far smaller space.
 *
 * Measured with `QUIRE_BENCH_SCALE=0.5 QUIRE_BENCH_ANALYTICS=ingest npm run bench -- analytics`
 * (5,000,000 views), V8's sizes and these taking turns: the server's peak memory 1,033–1,035 MiB
 * against 839–844 MiB; events/s 95,511 → 88,093 and 76,278 → 93,571, within the run-to-run noise.
 *
 * The event loop keeps V8's size: limited too (`--max-semi-space-size=16`), the peak went down to
 * 723–776 MiB, but the first page of a 90-day visitors query, which makes most of its objects on the
 * event loop, took 10.6 ms instead of 9.0 (medians of four and five servers on a 10,000,000-view database).
 */
export const semiSpaceMb = 16;

/** The limits of the long-lived threads (SQLite's writing and reading threads, the parse threads, the proxy's recorder). */
export const longLivedThreadLimits: ResourceLimits = { maxYoungGenerationSizeMb: semiSpaceMb * 3 };
