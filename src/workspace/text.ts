import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** The bytes as text, or null when they look binary (a NUL byte in their first 8 KiB, as git decides). */
function textOf(content: Buffer): string | null {
  return content.subarray(0, 8192).includes(0) ? null : content.toString('utf8');
}

/** The file's text, or null when it looks binary (see textOf). */
export async function readTextFile(path: string): Promise<string | null> {
  return textOf(await readFile(path));
}

/** readTextFile, blocking: for worker threads, where nothing else waits on the event loop; null when unreadable. */
export function readTextFileNow(path: string): string | null {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch {
    return null;
  }
  return textOf(content);
}
