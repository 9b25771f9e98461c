/**
 * The part of reading a log that import and tail share: lines in, parsed into requests, turned into
 * events by the one rule (request-event.ts), keyed by file and offset (line-keys.ts), stored in
 * batches through the ingestion pipeline, and counted in a summary whose reasons name each cause.
 */
import { prepareAll, storeEvents, type IngestProject, type IngestState } from '../ingest/ingest.ts';
import { assetRuleOf } from '../ingest/assets.ts';
import type { IncomingEvent } from '../ingest/validate.ts';
import { verifySignatures } from '../ingest/verify/web-bot-auth.ts';
import { formats, type FormatName } from './formats.ts';
import { fileFingerprint, lineKey } from './line-keys.ts';
import type { Line } from './lines.ts';
import { requestEvent } from './request-event.ts';

export interface ImportSummary {
  lines: number;
  accepted: number;
  skipped: number;
  /** Skipped lines and events by reason (static assets, other methods, malformed lines, duplicates, …). */
  reasons: Record<string, number>;
  /** Views kept with a change, by reason (an invalid client IP dropped, a path escaped). */
  notes: Record<string, number>;
}

export const emptySummary = (): ImportSummary => ({ lines: 0, accepted: 0, skipped: 0, reasons: {}, notes: {} });

/** Events per transaction (default 10,000): a log is read faster than it is stored, so bigger commits pay. */
const defaultBatchSize = 10_000;

export class LogBatch {
  readonly summary = emptySummary();
  #events: IncomingEvent[] = [];
  #keys: string[] = [];
  readonly #parse: (typeof formats)[FormatName]['parse'];
  readonly #state = new Map<string, unknown>();
  readonly #rule;
  readonly #note = (reason: string) => (this.summary.notes[reason] = (this.summary.notes[reason] ?? 0) + 1);
  #fingerprint: string | undefined;
  /** Byte offset after the last line added: once flushed, everything before it is stored. */
  #end = 0;

  readonly #analytics: IngestState;
  readonly #project: IngestProject;
  readonly #batchSize: number;

  constructor(analytics: IngestState, project: IngestProject & { skip_assets?: number }, format: FormatName, batchSize = defaultBatchSize) {
    this.#analytics = analytics;
    this.#project = project;
    this.#batchSize = batchSize;
    this.#parse = formats[format].parse;
    this.#rule = assetRuleOf(project);
  }

  /** The file's fingerprint (a hash of its first line); taken from the line at offset 0 when not set. */
  set fingerprint(value: string) {
    this.#fingerprint = value;
  }

  get size(): number {
    return this.#events.length;
  }

  skip(reason: string, count = 1): void {
    this.summary.skipped += count;
    this.summary.reasons[reason] = (this.summary.reasons[reason] ?? 0) + count;
  }

  /** Parses a line; resolves once any batch it completed is stored. */
  add(line: Line): Promise<number> | undefined {
    this.summary.lines++;
    this.#end = line.end;
    if (line.offset === 0 && this.#fingerprint === undefined) this.#fingerprint = fileFingerprint(line.text);
    if (line.text.trim() === '') return void this.skip('empty line');
    const parsed = this.#parse(line.text, this.#state);
    if ('skip' in parsed) return void this.skip(parsed.skip);
    parsed.requests.forEach((fields, index) => {
      const event = requestEvent(fields, this.#rule, this.#note);
      if ('skip' in event) return this.skip(event.skip);
      this.#events.push(event);
      this.#keys.push(lineKey(this.#fingerprint ?? '', line.offset, line.text, index));
    });
    return this.#events.length >= this.#batchSize ? this.flush() : undefined;
  }

  /** Stores the batch; returns the byte offset everything before which is now stored. */
  async flush(): Promise<number> {
    const end = this.#end;
    const inputs = this.#events;
    const keys = this.#keys;
    this.#events = [];
    this.#keys = [];
    const { stored, duplicates } = await storeKeyedEvents(this.#analytics, this.#project, inputs, keys, (reason) => this.skip(reason));
    this.summary.accepted += stored;
    if (duplicates > 0) this.skip('already imported', duplicates);
    return end;
  }
}

/**
 * Validates events, gives each its key, checks Web Bot Auth signatures of those that carry headers,
 * and stores them; an invalid event is skipped under a reason that quotes what to fix.
 */
export async function storeKeyedEvents(
  analytics: IngestState,
  project: IngestProject,
  inputs: IncomingEvent[],
  keys: string[],
  skip: (reason: string) => void,
): Promise<{ stored: number; duplicates: number }> {
  const { events, errors } = prepareAll(inputs);
  let error = 0;
  let kept = 0;
  inputs.forEach((_input, index) => {
    if (errors[error]?.index === index) error++;
    else events[kept++].eventKey = keys[index];
  });
  for (const problem of errors) skip(`invalid event: ${problem.message.replace(/"[^"]*"/g, '…')}`);
  if (events.some((event) => event.signed !== null)) await verifySignatures(analytics.directories, events);
  return storeEvents(analytics, project, events);
}
