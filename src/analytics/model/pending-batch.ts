import { ByteReader, ByteWriter } from './day-set.ts';

/**
 * Pending batches: the counted views of one ingestion commit until the indexer folds them into day
 * sets, as varints `count` then `day, pathId, class, visitor` per view.
 */

/** One counted view in a pending batch. */
export interface Tuple {
  day: number;
  pathId: number;
  classCode: number;
  visitor: number;
}

/** Builds a pending batch one counted view at a time. */
export class TupleWriter {
  readonly #body = new ByteWriter();
  count = 0;

  add(day: number, pathId: number, classCode: number, visitor: number): void {
    this.#body.write(day);
    this.#body.write(pathId);
    this.#body.write(classCode);
    this.#body.write(visitor);
    this.count++;
  }

  finish(): Uint8Array {
    const header = new ByteWriter();
    header.write(this.count);
    const head = header.finish();
    const body = this.#body.finish();
    const bytes = new Uint8Array(head.length + body.length);
    bytes.set(head);
    bytes.set(body, head.length);
    return bytes;
  }
}

export function encodeTuples(tuples: Tuple[]): Uint8Array {
  const writer = new TupleWriter();
  for (const tuple of tuples) writer.add(tuple.day, tuple.pathId, tuple.classCode, tuple.visitor);
  return writer.finish();
}

/** Calls `visit` with each counted view of a pending batch, without building objects. */
export function readTuples(bytes: Uint8Array, visit: (day: number, pathId: number, classCode: number, visitor: number) => void): void {
  const reader = new ByteReader(bytes);
  const count = reader.read();
  for (let index = 0; index < count; index++) visit(reader.read(), reader.read(), reader.read(), reader.read());
}

export function decodeTuples(bytes: Uint8Array): Tuple[] {
  const tuples: Tuple[] = [];
  readTuples(bytes, (day, pathId, classCode, visitor) => tuples.push({ day, pathId, classCode, visitor }));
  return tuples;
}
