/**
 * Reading a log and storing it, in one thread (a tail's pace is the writer's, not the reader's):
 * lines go through the LineParser (line-parser.ts) and its events are stored in batches through the
 * ingestion pipeline. A file import reads in a thread of its own instead (read-thread.ts).
 */
import { prepareAll, storeVerified, type IngestProject, type IngestState } from '../ingest/ingest.ts';
import { assetRuleOf, type AssetSettings } from '../ingest/assets.ts';
import type { IncomingEvent, PreparedEvent } from '../ingest/validate.ts';
import type { FormatName } from './formats.ts';
import { countSkipped, invalidReason, LineParser, type ImportSummary } from './line-parser.ts';
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

/** Validates events and gives each valid one its key; an invalid one is skipped under a reason that says what to fix. */
export function prepareKeyed(inputs: unknown[], keys: string[], skip: (reason: string) => void, now = Date.now()): PreparedEvent[] {
  const { events, errors } = prepareAll(inputs, now);
  let error = 0;
  let kept = 0;
  inputs.forEach((_input, index) => {
    if (errors[error]?.index === index) error++;
    else events[kept++].eventKey = keys[index];
  });
  for (const problem of errors) skip(invalidReason(problem.message));
  return events;
}

/**
 * Validates events, gives each its key (prepareKeyed), checks Web Bot Auth signatures of those that
 * carry headers, and stores them. The proxy stores its keyed requests through it; drains prepare theirs
 * in a parse thread (drains/prepare-batch.ts) and store them with storeVerified.
 */
export async function storeKeyedEvents(
  analytics: IngestState,
  project: IngestProject,
  inputs: IncomingEvent[],
  keys: string[],
  skip: (reason: string) => void,
): Promise<{ stored: number; duplicates: number }> {
  return storeVerified(analytics, project, prepareKeyed(inputs, keys, skip));
}
