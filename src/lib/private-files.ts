import { closeSync, fsyncSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * The data directory holds the database (password hashes, emails, analytics secrets, visitor data), the
 * generated secret key and job workspaces: what Quire creates there is for the service user alone,
 * whatever the umask (`data/` 0700, files 0600).
 */
const groupAndOthers = 0o077;

/** Windows has no mode bits (Node reports 0o666 for every file) and cannot open a directory to sync it. */
const windows = process.platform === 'win32';

/**
 * Makes `directory` (and any missing parents) with mode 0700 when it is not there. A directory that
 * already exists keeps its mode: the operator made it so (see `openToOthers`).
 */
export function makePrivateDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
}

/**
 * Creates `path` empty with mode 0600 when it is not there. An existing file is not even opened: closing
 * a descriptor of a file drops every POSIX lock this process holds on it, SQLite's included.
 */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** The mode (e.g. `755`) of `path` when group or others have any access to it; null when only its owner has, or it is not there. */
export function openToOthers(path: string): string | null {
  try {
    const mode = statSync(path).mode & 0o777;
    return modeOpenToOthers(mode) ? mode.toString(8) : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Whether `mode` gives group or others any access (never on Windows, where modes mean nothing). */
export function modeOpenToOthers(mode: number): boolean {
  return !windows && (mode & groupAndOthers) !== 0;
}

/**
 * Writes a file, or a directory's entries (a file just linked or renamed into it), to disk, so what
 * follows survives power loss. Windows cannot open a directory to flush it: there a directory is left.
 */
export function syncPath(path: string): void {
  if (windows && statSync(path).isDirectory()) return;
  const descriptor = openSync(path, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
