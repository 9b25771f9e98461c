import { posix } from 'node:path';
import { FileAccessError } from '../../lib/readable-files.ts';

/**
 * A path as a bookkeeping key (which files were read or written). Only a key: the files themselves
 * decide whether a path is allowed, so a path that normalizes oddly here is still refused there.
 */
export function pathKey(path: string): string {
  return posix
    .normalize(path.replace(/\\/g, '/'))
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
}

/** NUL bytes do not occur in text; a file holding one is treated as binary. */
export function isBinary(content: string): boolean {
  return content.includes('\u0000');
}

/**
 * Runs one tool and turns every failure into a sentence for the model, so a bad path or a missing
 * file costs the model one step instead of ending its run.
 */
export async function answer(path: string, work: () => Promise<string>): Promise<string> {
  try {
    return await work();
  } catch (error) {
    return `Error: ${explain(error, path)}`;
  }
}

function explain(error: unknown, path: string): string {
  if (error instanceof FileAccessError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return `Nothing exists at "${path}". Call list_files to see which files exist.`;
  if (code === 'EISDIR') return `"${path}" is a folder, not a file. Call list_files with path "${path}" to see its files.`;
  if (code === 'ENOTDIR') return `A part of "${path}" is a file, not a folder. Check the path with list_files.`;
  if (code === 'EEXIST') return `"${path}" already exists. Choose another path or delete it first.`;
  if (code === 'ENOTEMPTY') return `The folder "${path}" is not empty. Delete or move its files first.`;
  // Other file-system errors carry absolute server paths in their message; the code is enough.
  if (code) return `The file operation on "${path}" failed (${code}). Try another path.`;
  return error instanceof Error ? error.message : String(error);
}
