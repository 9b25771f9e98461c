/**
 * Reading a log and storing it, in one thread (a tail's pace is the writer's, not the reader's):
 * lines go through the LineParser (line-parser.ts) and its events are stored in batches through the
 * ingestion pipeline. A file import reads in a thread of its own instead (read-thread.ts).
 */
import { assetRuleOf, type AssetSettings } from '../capture/assets.ts';
import { storeVerified, type IngestProject, type IngestState } from '../ingest/ingest.ts';
import type { PreparedEvent } from '../model/prepared-event.ts';
import type { FormatName } from './formats.ts';
import { countSkipped, LineParser, type ImportSummary } from './line-parser.ts';
import type { Line } from './lines.ts';

/** Events per transaction (default 10,000): a log is read faster than it is stored, so bigger commits pay. */
export const defaultBatchSize = 10_000;

export class LogBatch {
  readonly #parser: LineParser;
  readonly #analytics: IngestState;
  readonly #project: IngestProject;
  readonly #batchSize: number;

  constructor(analytics: IngestState, project: IngestProject & AssetSettings, format: FormatName, batchSize = defaultBatchSize) {
    this.#analytics = analytics;
    this.#project = project;
    this.#batchSize = batchSize;
    this.#parser = new LineParser(format, assetRuleOf(project));
  }

  get summary(): ImportSummary {
    return this.#parser.summary;
  }

  /** The file's fingerprint (a hash of its first line); taken from the line at offset 0 when not set. */
  set fingerprint(value: string) {
    this.#parser.fingerprint = value;
  }

  get size(): number {
    return this.#parser.size;
  }

  skip(reason: string, count = 1): void {
    this.#parser.skip(reason, count);
  }

  /** See LineParser.readHeader. */
  readHeader(text: string): void {
    this.#parser.readHeader(text);
  }

  /** Parses a line; resolves once any batch it completed is stored. */
  add(line: Line): Promise<number> | undefined {
    return this.#parser.add(line) >= this.#batchSize ? this.flush() : undefined;
  }

  /** Stores the batch; returns the byte offset everything before which is now stored. */
  async flush(): Promise<number> {
    const { events, end } = this.#parser.take();
    await storeParsed(this.#analytics, this.#project, events, this.summary);
    return end;
  }
}

/** Stores events a LineParser prepared, and counts in `summary` those stored and those imported before. */
export async function storeParsed(analytics: IngestState, project: IngestProject, events: PreparedEvent[], summary: ImportSummary): Promise<void> {
  const { stored, duplicates } = await storeVerified(analytics, project, events);
  summary.accepted += stored;
  if (duplicates > 0) countSkipped(summary, 'already imported', duplicates);
}
