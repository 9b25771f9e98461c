import { tool } from 'ai';
import { z } from 'zod';
import type { ReadableFiles } from '../../lib/readable-files.ts';
import { cap, defaultLineLimit, listLimit, matchLimit, resultLimit } from '../caps.ts';
import { answer, isBinary, pathKey } from './answer.ts';

export interface ReadingToolOptions {
  /**
   * Called with each text file the model read, its path normalized (`pathKey`): the job agent lets
   * `edit_file` change only files read first; an assistant learns which pages it answered from.
   */
  onRead?(path: string): void;
  /** A sentence added to read_file's description, for what the caller's other tools expect of reading. */
  readNote?: string;
}

/** `list_files`, `read_file` and `search` over `files`, with results capped (see caps.ts); never a write. */
export function readingTools(files: ReadableFiles, options: ReadingToolOptions = {}) {
  return {
    list_files: tool({
      description:
        'Lists files and folders under a folder of the repository (all of it when no path is given), recursively. ' +
        'Optional `pattern` is a glob matched against paths, such as "**/*.md" or "docs/*.mdx".',
      inputSchema: z.object({
        path: z.string().optional().describe('Folder relative to the repository root; default the root.'),
        pattern: z.string().optional().describe('Glob the listed paths must match.'),
      }),
      execute: ({ path, pattern }) =>
        answer(path ?? '.', async () => {
          const entries = await files.list(path, pattern);
          if (entries.length === 0) return pattern ? `No paths match "${pattern}".` : 'The folder is empty.';
          const lines = entries.slice(0, listLimit).map((entry) => (entry.type === 'directory' ? `${entry.path}/` : `${entry.path} (${entry.size} bytes)`));
          const cut = entries.length > listLimit ? `\n[cut: ${entries.length - listLimit} more entries; list a subfolder or give a pattern]` : '';
          return cap(lines.join('\n'), resultLimit) + cut;
        }),
    }),

    read_file: tool({
      description:
        'Reads a text file. Returns up to `limit` lines (default 2000) starting at line `offset` (1-based, default 1).' +
        (options.readNote ? ` ${options.readNote}` : ''),
      inputSchema: z.object({
        path: z.string().describe('File relative to the repository root.'),
        offset: z.number().int().min(1).optional().describe('First line to return, counting from 1.'),
        limit: z.number().int().min(1).optional().describe('Number of lines to return.'),
      }),
      execute: ({ path, offset = 1, limit = defaultLineLimit }) =>
        answer(path, async () => {
          const content = await files.read(path);
          if (isBinary(content)) return `Error: "${path}" is a binary file; only text files can be read and edited.`;
          options.onRead?.(pathKey(path));
          const lines = content.split('\n');
          if (offset > lines.length) return `Error: "${path}" has ${lines.length} lines; choose an offset from 1 to ${lines.length}.`;
          const last = Math.min(lines.length, offset + limit - 1);
          const body = lines.slice(offset - 1, last).join('\n');
          const whole = offset === 1 && last === lines.length;
          const header = whole ? `${path} (${lines.length} lines):` : `${path} (lines ${offset}-${last} of ${lines.length}):`;
          const more = last < lines.length ? `\n[more: call read_file with offset ${last + 1} for the rest]` : '';
          if (body.length > resultLimit) {
            return `${header}\n${body.slice(0, resultLimit)}\n[cut at ${resultLimit} characters; read fewer lines with offset and limit]`;
          }
          return `${header}\n${body}${more}`;
        }),
    }),

    search: tool({
      description:
        'Searches text files for a regular expression and returns matching lines as path:line: text. ' +
        'JavaScript syntax without backreferences (\\1) or lookaround ((?=…), (?<!…)), which the search engine does not support.',
      inputSchema: z.object({
        pattern: z.string().min(1).describe('Regular expression, e.g. "getting started" or "\\]\\(/guides/".'),
        path: z.string().optional().describe('Folder or file to search; default the whole repository.'),
      }),
      execute: ({ pattern, path }) =>
        answer(path ?? '.', async () => {
          const matches = await files.search(pattern, path);
          if (matches.length === 0) return `No matches for ${pattern}.`;
          const lines = matches.slice(0, matchLimit).map((match) => `${match.path}:${match.line}: ${match.text.slice(0, 300)}`);
          const cut = matches.length > matchLimit ? `\n[cut: ${matches.length - matchLimit} more matches; narrow the pattern or path]` : '';
          return cap(lines.join('\n'), resultLimit) + cut;
        }),
    }),
  };
}
