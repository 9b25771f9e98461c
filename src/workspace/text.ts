import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** The file's text, or null when it looks binary (a NUL byte in its first 8 KiB, as git decides). */
export async function readTextFile(path: string): Promise<string | null> {
  const content = await readFile(path);
  return content.subarray(0, 8192).includes(0) ? null : content.toString('utf8');
}

/** readTextFile, blocking: for worker threads, where nothing else waits on the event loop; null when unreadable. */
export function readTextFileNow(path: string): string | null {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch {
    return null;
  }
  return content.subarray(0, 8192).includes(0) ? null : content.toString('utf8');
}
