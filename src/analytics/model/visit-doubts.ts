import { dayMs, dayOf } from './days.ts';
import { readRecords, RecordWriter } from './varint.ts';

/**
 * Visit doubts: the views whose entry flag and visit source ingestion could not be sure of (see
 * ingest/dimensions/visits.ts), by visitor and time, for the fold to recompute their visits from the
 * raw events (fold/visit-repair.ts). RecordWriter records `day, ms of the day, visitor, 0`: a time
 * does not fit one 32-bit varint.
 */
export class VisitDoubts {
  readonly #writer = new RecordWriter();

  get count(): number {
    return this.#writer.count;
  }

  add(visitor: number, at: number): void {
    const day = dayOf(at);
    this.#writer.add(day, at - day * dayMs, visitor, 0);
  }

  finish(): Uint8Array {
    return this.#writer.finish();
  }
}

/** Calls `visit` with each doubtful view of encoded doubts (null: none). */
export function readVisitDoubts(bytes: Uint8Array | null, visit: (visitor: number, at: number) => void): void {
  if (bytes !== null) readRecords(bytes, (day, time, visitor) => visit(visitor, day * dayMs + time));
}
