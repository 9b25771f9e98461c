/**
 * Event keys of log lines, so a line read twice (a file imported again, a tail resumed from an older
 * position, the same file tailed and then imported) is stored once. A key is the file's fingerprint
 * (a hash of its first line), the line's byte offset and a hash of the line's text: keys of one file
 * grow with the offset, so the database appends them to its unique index instead of writing at random
 * places in it (random keys made that index the largest cost of an import).
 */
import { createHash } from 'node:crypto';

/** A file's fingerprint: 8 characters of the SHA-256 of its first line. */
export function fileFingerprint(firstLine: string): string {
  return createHash('sha256').update(firstLine).digest('base64url').slice(0, 8);
}

/** FNV-1a, 32 bits, of a text: with the offset it tells apart lines of files whose first lines are equal. */
function textHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/** The key of the `index`th event of the line at `offset`. */
export function lineKey(fingerprint: string, offset: number, line: string, index: number): string {
  const key = `${fingerprint}${offset.toString(36).padStart(10, '0')}${textHash(line).toString(36).padStart(7, '0')}`;
  return index === 0 ? key : `${key}.${index}`;
}
