import type { Kysely } from 'kysely';
import { recordSessionEntries } from '../../../jobs/sessions.ts';
import type { Database } from '../../../storage/schema.ts';
import type { MessageRole } from '../../../storage/tables/jobs.ts';

/** How long tool calls' transcript entries wait to be written together. */
export const transcriptFlushMs = 100;

interface Entry {
  role: MessageRole;
  content: Record<string, unknown>;
  at: number;
}

/**
 * The transcript entries of one admin MCP session's tool calls, written in batches after the calls are
 * answered: a commit per call cost more than the call itself (read_file, search). Entries keep their
 * order; `flush` writes what is pending and is awaited before anything else writes to the job's
 * transcript (save) and before the session ends (idle, cancel, takeover, shutdown), so no answered call
 * is missing from it then.
 */
export class TranscriptBuffer {
  private pending: Entry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly db: Kysely<Database>;
  private readonly jobId: string;
  private readonly onError: (error: unknown) => void;

  constructor(db: Kysely<Database>, jobId: string, onError: (error: unknown) => void) {
    this.db = db;
    this.jobId = jobId;
    this.onError = onError;
  }

  /** Queues an entry; it is written within `transcriptFlushMs`, or at the next `flush`. */
  add(role: MessageRole, content: Record<string, unknown>): void {
    this.pending.push({ role, content, at: Date.now() });
    this.timer ??= setTimeout(() => void this.flush().catch(this.onError), transcriptFlushMs);
  }

  /** Writes every pending entry, in order, in one transaction; resolves once they and earlier batches committed. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    const write = async () => {
      try {
        await recordSessionEntries(this.db, this.jobId, batch);
      } catch (error) {
        // Kept for the next flush, before anything added since.
        this.pending = [...batch, ...this.pending];
        throw error;
      }
    };
    this.writing = this.writing.catch(() => undefined).then(write);
    return this.writing;
  }
}
