/**
 * The JSON of recently read jobs, for clients that poll a job while it runs. An entry is served
 * only while the storage's change clock still shows the value it had before the job was read, so
 * every write makes the next read go to the database: one of this process at once, another
 * process's commit from the next event-loop iteration on. Dialects without a cheap clock
 * (PostgreSQL) do not cache.
 */
export class JobReadCache {
  readonly #entries = new Map<string, { projectId: string; mark: number; body: string }>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** The cached JSON of job `jobId` in `projectId`, if it was read at change mark `mark`. */
  lookup(jobId: string, projectId: string, mark: number): string | undefined {
    const entry = this.#entries.get(jobId);
    return entry && entry.mark === mark && entry.projectId === projectId ? entry.body : undefined;
  }

  /** Remembers `body`, read after the change clock showed `mark`. */
  store(jobId: string, projectId: string, mark: number, body: string): void {
    if (!this.#entries.has(jobId) && this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(jobId, { projectId, mark, body });
  }
}
