/**
 * Follows a growing log file, as `tail -F` does, and stores its views as they are written.
 *
 * - A file is known by its identity: device, inode and a hash of its first line. Its read position
 *   is stored per project and identity after each committed batch (tail-position.ts), so a restart
 *   resumes there. A crash between a commit and the position's update re-reads a few lines; their
 *   event keys (file hash and byte offset, line-keys.ts) are stored already, so they count once.
 * - Rotation by rename (logrotate's default): when the path names another inode, the old file is
 *   read to its end (its unfinished last line included) and the new one from its start.
 * - Rotation by copytruncate: when the file is shorter than the position, it starts again at 0
 *   (its first line, hence its identity, is new).
 * - A last line without its newline is not read until the writer finishes it.
 * - A line longer than lines.ts's maxLineBytes is skipped as it is read, never held whole; the position
 *   moves past it as past any other line.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AssetSettings } from '../capture/assets.ts';
import type { IngestProject, IngestState } from '../ingest/ingest.ts';
import type { FormatName } from './formats.ts';
import type { ImportSummary } from './line-parser.ts';
import { LogBatch } from './log-batch.ts';
import { fileFingerprint } from './line-keys.ts';
import { lineHeadBytes, LineSplitter } from './lines.ts';
import { loadTailPosition, saveTailPosition } from './tail-position.ts';

export interface TailOptions {
  /** Stops following (after storing what was read) when aborted. */
  signal: AbortSignal;
  /** How often to look for new lines and rotation, in milliseconds (default 250). */
  pollMilliseconds?: number;
  /** Called after each stored batch. */
  onBatch?: (summary: ImportSummary) => void;
  /** Events per transaction (default 10,000); a batch is also stored whenever the reader catches up. */
  batchSize?: number;
}

const chunkSize = 1 << 20;
/** Bytes of a file's first line its identity is taken from (the head an over-long line keeps, lines.ts). */
const firstLineLimit = lineHeadBytes;

interface OpenFile {
  handle: FileHandle;
  inode: number;
  device: number;
  identity: string;
  splitter: LineSplitter;
  /** Where the next read starts. */
  offset: number;
}

/** The file's first 64 KiB (less when it is shorter). */
async function readHead(handle: FileHandle): Promise<Buffer> {
  const buffer = Buffer.alloc(firstLineLimit);
  const { bytesRead } = await handle.read(buffer, 0, firstLineLimit, 0);
  return buffer.subarray(0, bytesRead);
}

/** The first line of a file's head as LineSplitter decodes it, or undefined while it is unfinished. */
function firstLineOf(head: Buffer): string | undefined {
  const newline = head.indexOf(10);
  if (newline === -1) return head.length === firstLineLimit ? head.toString('utf8') : undefined;
  return head.toString('utf8', 0, newline > 0 && head[newline - 1] === 13 ? newline - 1 : newline);
}

/** Follows `path` until `options.signal` aborts; returns what was read in this run. */
export async function tailLog(
  analytics: IngestState,
  project: IngestProject & AssetSettings,
  format: FormatName,
  path: string,
  options: TailOptions,
): Promise<ImportSummary> {
  const db = analytics.storage.db;
  const batch = new LogBatch(analytics, project, format, options.batchSize);
  const poll = options.pollMilliseconds ?? 250;
  const buffer = Buffer.alloc(chunkSize);
  let file: OpenFile | undefined;
  let linesBefore = 0;

  /** Stores the batch and then the position it covers. */
  const commit = async () => {
    if (!file) return;
    const end = await batch.flush();
    const current = file;
    await saveTailPosition(db, project.id, current.identity, path, { position: end, lines: linesBefore + batch.summary.lines });
    options.onBatch?.(batch.summary);
  };

  const openAt = async (): Promise<OpenFile | undefined> => {
    const handle = await open(path, 'r').catch(() => undefined);
    if (!handle) return undefined;
    const bytes = await readHead(handle);
    const first = firstLineOf(bytes);
    if (first === undefined) {
      await handle.close();
      return undefined;
    }
    const info = await handle.stat();
    const identity = `${info.dev}:${info.ino}:${fileFingerprint(first)}`;
    const stored = await loadTailPosition(db, project.id, identity);
    const offset = stored && stored.position <= info.size ? stored.position : 0;
    linesBefore = (stored?.lines ?? 0) - batch.summary.lines;
    batch.fingerprint = fileFingerprint(first);
    // Resuming past the file's header (CloudFront's `#Fields:`): its columns are read again, not counted again.
    if (offset > 0) {
      for (const line of new LineSplitter().push(bytes)) {
        if (line.end > offset || !line.text.startsWith('#')) break;
        batch.readHeader(line.text);
      }
    }
    return { handle, inode: info.ino, device: info.dev, identity, splitter: new LineSplitter(offset), offset };
  };

  const truncated = async (current: OpenFile): Promise<boolean> => {
    if ((await current.handle.stat()).size < current.offset) return true;
    const first = firstLineOf(await readHead(current.handle));
    return first === undefined || !current.identity.endsWith(`:${fileFingerprint(first)}`);
  };

  /** Reads what is there; returns whether anything was. */
  const readAvailable = async (current: OpenFile): Promise<boolean> => {
    let any = false;
    for (;;) {
      const { bytesRead } = await current.handle.read(buffer, 0, chunkSize, current.offset);
      if (bytesRead === 0) return any;
      any = true;
      current.offset += bytesRead;
      for (const line of current.splitter.push(buffer.subarray(0, bytesRead))) {
        const stored = batch.add(line);
        if (stored) {
          await stored;
          await saveTailPosition(db, project.id, current.identity, path, { position: line.end, lines: linesBefore + batch.summary.lines });
          options.onBatch?.(batch.summary);
        }
      }
      if (options.signal.aborted) return any;
    }
  };

  try {
    while (!options.signal.aborted) {
      file ??= await openAt();
      if (!file) {
        await sleep(poll, undefined, { signal: options.signal }).catch(() => undefined);
        continue;
      }
      // Truncated in place (copytruncate), even if written again past our position since: read it from
      // the start, as a new identity. Checked before reading, so new content is never read from the old position.
      if (await truncated(file)) {
        await file.handle.close();
        file = undefined;
        continue;
      }
      const grew = await readAvailable(file);
      if (grew || batch.size > 0) await commit();
      if (options.signal.aborted) break;
      const onDisk = await stat(path).catch(() => undefined);
      if (onDisk && (onDisk.ino !== file.inode || onDisk.dev !== file.device)) {
        // Renamed away and replaced: finish the old file, its last line included, then follow the new one.
        await readAvailable(file);
        for (const line of file.splitter.finish()) await batch.add(line);
        await commit();
        await file.handle.close();
        file = undefined;
        continue;
      }
      await sleep(poll, undefined, { signal: options.signal }).catch(() => undefined);
    }
    if (file && batch.size > 0) await commit();
  } finally {
    await file?.handle.close();
  }
  return batch.summary;
}
