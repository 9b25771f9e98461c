/**
 * Downloads the operators' range files named in `ip-ranges/index.json` again. A file is replaced only
 * when the download parses as ranges, so a failed or garbled download keeps the copy already there.
 */
import { writeFile } from 'node:fs/promises';
import { parseRangeFile, rangeSources, rangesDirectory, type RangeSource } from './operator-ranges.ts';

export interface SourceUpdate {
  file: string;
  url: string;
  /** Ranges in the new file; absent when the download failed. */
  ranges?: number;
  error?: string;
}

export interface UpdateOptions {
  directory?: URL;
  /** The address to download a source from (tests serve the same files locally). */
  urlOf?: (source: RangeSource) => string;
  timeoutMs?: number;
}

async function download(url: string, timeoutMs: number): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  return response.text();
}

function reason(error: unknown): string {
  if ((error as Error).name === 'TimeoutError') return 'no answer in time; is this machine online?';
  // fetch reports a connection that could not be made (no DNS, refused, unreachable) as "fetch failed" with the cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof TypeError && cause !== undefined) return `cannot reach the host (${cause.code ?? cause.message}); is this machine online?`;
  return (error as Error).message;
}

/** Downloads every source; returns one line of outcome per source. */
export async function updateIpRanges(options: UpdateOptions = {}): Promise<SourceUpdate[]> {
  const directory = options.directory ?? rangesDirectory;
  const urlOf = options.urlOf ?? ((source: RangeSource) => source.url);
  return Promise.all(
    rangeSources.map(async (source): Promise<SourceUpdate> => {
      const url = urlOf(source);
      try {
        const text = await download(url, options.timeoutMs ?? 20_000);
        let ranges: string[];
        try {
          ranges = parseRangeFile(text);
        } catch (error) {
          throw new Error(`the download is not a range file: ${(error as Error).message}`, { cause: error });
        }
        await writeFile(new URL(source.file, directory), text);
        return { file: source.file, url, ranges: ranges.length };
      } catch (error) {
        return { file: source.file, url, error: reason(error) };
      }
    }),
  );
}
