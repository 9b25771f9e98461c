/**
 * The reading half of an import: lines in, parsed into requests, turned into events by the one rule
 * (../capture/request-event.ts), validated, keyed by file and offset (line-keys.ts), and counted in a summary
 * whose reasons name each cause. It holds no connection, so it runs in the importer's reading thread
 * (read-thread.ts) as well as beside the writer of a tail (log-batch.ts).
 */
import type { AssetRule } from '../capture/assets.ts';
import { prepareEvent } from '../ingest/validate.ts';
import type { ParsedBatch } from '../model/packed-batch.ts';
import type { PreparedEvent, VisitorKey } from '../model/prepared-event.ts';
import { IdentityCache } from '../ingest/identity-cache.ts';
import { visitorHash } from '../ingest/visitor-hash.ts';
import { formats, type FormatName } from './formats.ts';
import { fileFingerprint, lineKey } from './line-keys.ts';
import { maxLineBytes, type Line } from './lines.ts';
import { countReason, invalidReason, requestEvent } from '../capture/request-event.ts';

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

/** Adds `count` events skipped for `reason` to a summary. */
export function countSkipped(summary: ImportSummary, reason: string, count = 1): void {
  summary.skipped += count;
  countReason(summary.reasons, reason, count);
}

/** Why an over-long line (lines.ts) is skipped unread. */
const overLongReason = `line longer than ${maxLineBytes / (1024 * 1024)} MiB`;

/** Distinct user agents a parser numbers (then it starts over, forgetting the keys it saw too). */
const agentLimit = 50_000;

export class LineParser {
  readonly summary = emptySummary();
  #events: PreparedEvent[] = [];
  readonly #parse: (typeof formats)[FormatName]['parse'];
  readonly #state = new Map<string, unknown>();
  readonly #rule: AssetRule;
  readonly #secret: string | undefined;
  /** Visitor keys hashed before, with their user agent numbered by #agents (only whether they are there counts). */
  readonly #seen = new IdentityCache();
  readonly #agents = new Map<string, number>();
  readonly #note = (reason: string) => countReason(this.summary.notes, reason);
  #fingerprint: string | undefined;
  /** Byte offset after the last line added. */
  #end = 0;

  /**
   * With the project's analytics secret, visitor hashes are computed here (see
   * PreparedEvent.visitorHash), where a reading thread has the time the writer lacks: for the first
   * line of each visitor key. A later line's visitor is in the storing side's identity cache by
   * then, which needs no hash; where it is not, the storing side computes the hash itself.
   */
  constructor(format: FormatName, rule: AssetRule, secret?: string) {
    this.#parse = formats[format].parse;
    this.#rule = rule;
    this.#secret = secret;
  }

  /** The file's fingerprint (a hash of its first line); taken from the line at offset 0 when not set. */
  set fingerprint(value: string) {
    this.#fingerprint = value;
  }

  /** Events waiting to be taken. */
  get size(): number {
    return this.#events.length;
  }

  skip(reason: string, count = 1): void {
    countSkipped(this.summary, reason, count);
  }

  /**
   * Reads a header line (one starting with `#`, such as CloudFront's `#Fields:`) into the format's
   * state without counting it: a tail resuming past a file's header still reads its columns by name.
   */
  readHeader(text: string): void {
    if (text.startsWith('#')) this.#parse(text, this.#state);
  }

  /** Parses a line into the waiting events; returns how many events wait. */
  add(line: Line, now = Date.now()): number {
    this.summary.lines++;
    this.#end = line.end;
    if (line.offset === 0 && this.#fingerprint === undefined) this.#fingerprint = fileFingerprint(line.text);
    if (line.overLong) {
      this.skip(overLongReason);
      return this.#events.length;
    }
    if (line.text.trim() === '') {
      this.skip('empty line');
      return this.#events.length;
    }
    const parsed = this.#parse(line.text, this.#state);
    if ('skip' in parsed) {
      this.skip(parsed.skip);
      return this.#events.length;
    }
    parsed.requests.forEach((fields, index) => {
      const input = requestEvent(fields, this.#rule, this.#note);
      if ('skip' in input) return this.skip(input.skip);
      let event: PreparedEvent;
      try {
        event = prepareEvent(input, now);
      } catch (error) {
        return this.skip(invalidReason((error as Error).message));
      }
      event.eventKey = lineKey(this.#fingerprint ?? '', line.offset, line.text, index);
      if (this.#secret !== undefined && this.#firstSighting(event.visitorKey)) event.visitorHash = visitorHash(this.#secret, event.visitorKey);
      this.#events.push(event);
    });
    return this.#events.length;
  }

  #firstSighting(key: VisitorKey): boolean {
    const userAgent = key.userAgent ?? '';
    let agent = this.#agents.get(userAgent);
    if (agent === undefined) {
      if (this.#agents.size >= agentLimit) {
        this.#agents.clear();
        this.#seen.clear();
      }
      this.#agents.set(userAgent, (agent = this.#agents.size));
    }
    return this.#seen.add(0, key, agent, 1);
  }

  /** The waiting events, and the offset everything before which has been read. */
  take(): ParsedBatch {
    const events = this.#events;
    this.#events = [];
    return { events, end: this.#end };
  }
}
