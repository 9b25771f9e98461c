import { splitCommandLine } from './command-line.ts';
import { cat, head, ls, treeCommand, type Command } from './commands.ts';
import { treeOf } from './docs-tree.ts';
import { CommandError, UsageError } from './errors.ts';
import { limitOutput } from './output.ts';
import { rg } from './rg.ts';
import type { DocsFile } from './source.ts';

const commands: Record<string, Command> = { ls, tree: treeCommand, cat, head, rg };

/** The commands and their syntax, as an agent sees them in the tool's description and in its errors. */
export const filesystemUsage = [
  'Commands (read-only; paths are file paths relative to the docs root, and a leading / is that root):',
  '  ls [path]                     list a folder: folders (ending in /) first, then pages',
  '  tree [path] [-L n]            the tree under path, n levels deep',
  '  cat path…                     the Markdown of one or more pages',
  '  head [-n N] path              the first N lines of a page (10)',
  '  rg [-i] [-l] pattern [path]   lines matching a regular expression (RE2 syntax), as path:line:text;',
  '                                -i ignores case, -l lists matching pages only',
  "One command per call, quoted like a shell's ('…', \"…\", \\): no pipes, redirections, globs, ;, && or $(…).",
].join('\n');

export interface FilesystemAnswer {
  text: string;
  isError: boolean;
  /** Pages whose content the answer holds, whole or in part: each is one view. */
  pagesRead: string[];
}

/**
 * Runs one command over the pages. The command is parsed here, never by a shell, and every path
 * resolves against the pages' list: nothing outside it can be named, let alone read.
 */
export async function runFilesystemCommand(command: string, files: DocsFile[]): Promise<FilesystemAnswer> {
  try {
    const [name, ...args] = splitCommandLine(command);
    if (name === undefined) throw new UsageError('The command is empty.');
    const run = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!run) throw new UsageError(`Unknown command: ${name}.`);
    const { text, pagesRead } = limitOutput(await run(args, treeOf(files)));
    return { text, isError: false, pagesRead };
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    const text = error instanceof UsageError ? `${error.message}\n\n${filesystemUsage}` : error.message;
    return { text, isError: true, pagesRead: [] };
  }
}
