import type { ClassCode } from './class-codes.ts';
import { ByteReader, ByteWriter } from './varint.ts';

/**
 * A pending batch: the counted views of one ingestion commit until the fold merges them into day
 * sets, as varints `count` then `day, pathId, class, visitor` per view.
 */

/** One counted view: its UTC day, path, class and visitor, all dense integers. */
export interface CountedView {
  day: number;
  pathId: number;
  classCode: ClassCode;
  visitor: number;
}

type Visit = (day: number, pathId: number, classCode: ClassCode, visitor: number) => void;

/** Builds a pending batch one counted view at a time. */
export class PendingBatchWriter {
  readonly #body = new ByteWriter();
  count = 0;

  add(day: number, pathId: number, classCode: ClassCode, visitor: number): void {
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

export function encodePendingBatch(views: CountedView[]): Uint8Array {
  const writer = new PendingBatchWriter();
  for (const view of views) writer.add(view.day, view.pathId, view.classCode, view.visitor);
  return writer.finish();
}

/** Calls `visit` with each counted view of a pending batch, without building objects. */
export function readPendingBatch(bytes: Uint8Array, visit: Visit): void {
  const reader = new ByteReader(bytes);
  const count = reader.read();
  for (let index = 0; index < count; index++) visit(reader.read(), reader.read(), reader.read() as ClassCode, reader.read());
}

export function decodePendingBatch(bytes: Uint8Array): CountedView[] {
  const views: CountedView[] = [];
  readPendingBatch(bytes, (day, pathId, classCode, visitor) => views.push({ day, pathId, classCode, visitor }));
  return views;
}
