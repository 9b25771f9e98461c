import { ByteReader, ByteWriter } from './varint.ts';

/**
 * A day set: the visitors of one project, UTC day and class, per path, as varints (see varint.ts).
 * Visitor ids of a path are sorted and delta-encoded, so a typical entry takes one or two bytes.
 * For each path in ascending id order: `pathId, views, visitorCount, firstVisitor, delta…`.
 */

/** The visitors of one day and class, decoded: path `paths[i]` owns `visitors[starts[i]..starts[i+1])`. */
export interface DaySet {
  paths: Uint32Array;
  views: Uint32Array;
  starts: Uint32Array;
  visitors: Uint32Array;
}

/** A path's visitors (sorted, distinct) and view count, the unit day sets are built from. */
export interface PathEntry {
  visitors: Uint32Array;
  views: number;
}

/** One path's part of a day set: `visitors[from..to)` are its visitors, sorted and distinct. */
function writePath(writer: ByteWriter, pathId: number, views: number, visitors: Uint32Array, from: number, to: number): void {
  writer.write(pathId);
  writer.write(views);
  writer.write(to - from);
  let previous = 0;
  for (let index = from; index < to; index++) {
    writer.write(visitors[index] - previous);
    previous = visitors[index];
  }
}

export function encodeDaySet(entries: Map<number, PathEntry>): Uint8Array {
  const writer = new ByteWriter();
  for (const pathId of [...entries.keys()].sort((a, b) => a - b)) {
    const { visitors, views } = entries.get(pathId)!;
    writePath(writer, pathId, views, visitors, 0, visitors.length);
  }
  return writer.finish();
}

/** `encodeDaySet` of a decoded day set (its paths ascending), without a map of its paths. */
export function encodeDecodedDaySet(set: DaySet): Uint8Array {
  const writer = new ByteWriter();
  for (let index = 0; index < set.paths.length; index++)
    writePath(writer, set.paths[index], set.views[index], set.visitors, set.starts[index], set.starts[index + 1]);
  return writer.finish();
}

export function decodeDaySet(bytes: Uint8Array): DaySet {
  const reader = new ByteReader(bytes);
  const paths: number[] = [];
  const views: number[] = [];
  const starts: number[] = [0];
  // Every entry takes at least one byte, so the byte length bounds the visitor count.
  const visitors = new Uint32Array(bytes.length);
  let count = 0;
  while (!reader.done) {
    paths.push(reader.read());
    views.push(reader.read());
    const size = reader.read();
    let visitor = 0;
    for (let index = 0; index < size; index++) {
      visitor += reader.read();
      visitors[count++] = visitor;
    }
    starts.push(count);
  }
  return { paths: Uint32Array.from(paths), views: Uint32Array.from(views), starts: Uint32Array.from(starts), visitors: visitors.slice(0, count) };
}

export function daySetEntries(set: DaySet): Map<number, PathEntry> {
  const entries = new Map<number, PathEntry>();
  set.paths.forEach((pathId, index) =>
    entries.set(pathId, { visitors: set.visitors.subarray(set.starts[index], set.starts[index + 1]), views: set.views[index] }),
  );
  return entries;
}

/** Union of two sorted, distinct id lists. */
export function unionSorted(left: Uint32Array, right: Uint32Array): Uint32Array {
  const result = new Uint32Array(left.length + right.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < left.length && j < right.length) {
    const a = left[i];
    const b = right[j];
    if (a < b) result[k++] = left[i++];
    else if (b < a) result[k++] = right[j++];
    else {
      result[k++] = a;
      i++;
      j++;
    }
  }
  while (i < left.length) result[k++] = left[i++];
  while (j < right.length) result[k++] = right[j++];
  return result.subarray(0, k);
}

/** Sorts and removes duplicates. */
export function sortedDistinct(values: number[]): Uint32Array {
  const sorted = Uint32Array.from(values).sort();
  let k = 0;
  for (let index = 0; index < sorted.length; index++) if (index === 0 || sorted[index] !== sorted[k - 1]) sorted[k++] = sorted[index];
  return sorted.subarray(0, k);
}
