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
 * The event loop of `quire serve` gets the same size from its command line (`serverNodeFlags`, below).
 */
export const semiSpaceMb = 16;

/** The limits of the long-lived threads (SQLite's writing and reading threads, the parse threads, the proxy's recorder). */
export const longLivedThreadLimits: ResourceLimits = { maxYoungGenerationSizeMb: semiSpaceMb * 3 };

/**
 * How far V8 lets a heap's old generation grow past what its last full collection kept, in percent: the next full
 * collection starts at (1 + heapGrowingPercent / 100) times the live heap. V8 picks the factor itself, up to four
 * times, from how fast its collections run against the program; under an ingestion load the event loop's old
 * generation filled with objects that outlived a few young collections (most likely the rows and statements of
 * group commits, each spanning several milliseconds), and grew from about 130 MiB live to 600 MiB before it was
 * collected: the top of the server's memory in the analytics benchmark. Twice the live heap bounds that, for more
 * frequent full collections, whose cost stayed within the ingestion benchmark's run-to-run noise (see "The old
 * generation" in docs/operations.md).
 */
const heapGrowingPercent = 100;

/**
 * The Node flags `quire serve` runs with: the event loop's young generation at the threads' size, and the old
 * generation's growth bounded (V8 flags are the process's, so they hold in every thread). V8 reads them only as the
 * process starts, so they are on every command that starts the server (`npm start`, `bin/quire.js serve`, the
 * Dockerfile, the systemd unit, the benchmarks' servers; test/cli/signals.test.ts and test/server/deploy.test.ts hold
 * them to this list).
 *
 * V8's own young size (64 MiB semi-spaces) held about 190 MiB once the event loop had been busy, never given back, and the
 * work after a load (indexes, value pages) came on top of it: see "The young generation" in docs/operations.md for the figures.
 */
export const serverNodeFlags = [`--max-semi-space-size=${semiSpaceMb}`, `--heap-growing-percent=${heapGrowingPercent}`];

/**
 * The environment `quire serve` runs with: glibc's malloc limited to two arenas. glibc gives each thread that
 * allocates its own arena (up to eight per core), and what a thread frees stays resident in its arena; Quire's
 * threads (parse threads, SQLite's writing and reading threads) allocate natively for every batch (array buffers,
 * SQLite's pages), so a load left each arena holding its high-water mark. Read by glibc only as a process starts,
 * so it is set on every command that starts the server, like `serverNodeFlags` (a value given in the environment
 * is kept); other C libraries ignore it.
 *
 * `npm run bench -- analytics` (10,000,000 views), peak server memory: 979 and 1,006 MiB without it, 910, 890
 * and 1,042 MiB with it, the same day, at 69,030–69,732 against 72,263–78,373 events/s.
 */
export const serverEnvironment: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
