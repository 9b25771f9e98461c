import type { ClassCode } from './class-codes.ts';
import { readRecords, RecordWriter } from './varint.ts';

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

export function encodePendingBatch(views: CountedView[]): Uint8Array {
  const writer = new RecordWriter();
  for (const view of views) writer.add(view.day, view.pathId, view.classCode, view.visitor);
  return writer.finish();
}

/** Calls `visit` with each counted view of a pending batch (built with a RecordWriter), without building objects. */
export function readPendingBatch(bytes: Uint8Array, visit: Visit): void {
  readRecords(bytes, visit as (day: number, pathId: number, classCode: number, visitor: number) => void);
}

export function decodePendingBatch(bytes: Uint8Array): CountedView[] {
  const views: CountedView[] = [];
  readPendingBatch(bytes, (day, pathId, classCode, visitor) => views.push({ day, pathId, classCode, visitor }));
  return views;
}
