import { tool } from 'ai';
import { z } from 'zod';
import { answer, isBinary, pathKey } from '../../llm/tools/answer.ts';
import type { ToolContext } from './context.ts';
import { moveWrites, recordWrite, refuseWrite } from './limits.ts';

/**
 * Whether `path` is an existing file, and its text. Reading refuses binary files, so overwriting one
 * with text is refused with the same explanation the model gets from read_file.
 */
async function existingText(context: ToolContext, path: string): Promise<string | null> {
  const entries = await context.files.list(path).catch(() => []);
  if (!entries.some((entry) => entry.type === 'file')) return null;
  return context.files.read(path);
}

function occurrences(content: string, text: string): number {
  let count = 0;
  for (let index = content.indexOf(text); index >= 0; index = content.indexOf(text, index + text.length)) count += 1;
  return count;
}

export function writingTools(context: ToolContext) {
  return {
    write_file: tool({
      description: 'Creates a file, or replaces the whole content of one, creating missing folders. Prefer edit_file for changes to existing files.',
      inputSchema: z.object({
        path: z.string().describe('File relative to the repository root.'),
        content: z.string().describe('The complete new content of the file.'),
      }),
      execute: ({ path, content }) =>
        answer(path, async () => {
          const before = await existingText(context, path);
          if (before !== null && isBinary(before))
            return `Error: "${path}" is a binary file and cannot be overwritten with text; delete_file it first if it should be replaced.`;
          const refused = refuseWrite(context, path, content);
          if (refused) return refused;
          await context.files.write(path, content);
          recordWrite(context, path, content);
          context.seen.add(pathKey(path));
          return `${before === null ? 'Created' : 'Replaced'} ${path} (${content.split('\n').length} lines).`;
        }),
    }),

    edit_file: tool({
      description:
        'Replaces exact text in a file you have read with read_file. `old_string` must match the file exactly (whitespace included) ' +
        'and only once, unless `replace_all` is true. `new_string` is inserted literally.',
      inputSchema: z.object({
        path: z.string().describe('File relative to the repository root.'),
        old_string: z.string().describe('Text to replace, copied exactly from the file; include surrounding lines to make it unique.'),
        new_string: z.string().describe('Text to put in its place.'),
        replace_all: z.boolean().optional().describe('Replace every occurrence instead of exactly one.'),
      }),
      execute: ({ path, old_string: oldText, new_string: newText, replace_all: replaceAll = false }) =>
        answer(path, async () => {
          if (!context.seen.has(pathKey(path))) return `Error: read "${path}" with read_file before editing it, so the edit is based on its current content.`;
          const content = await context.files.read(path);
          if (isBinary(content)) return `Error: "${path}" is a binary file; only text files can be edited.`;
          if (oldText === '') return 'Error: old_string is empty. To write a whole file use write_file; otherwise copy the text to replace from the file.';
          if (oldText === newText) return 'Error: old_string and new_string are the same, so the edit would change nothing.';
          const count = occurrences(content, oldText);
          if (count === 0)
            return `Error: old_string was not found in "${path}". Read the file again and copy the text exactly, including whitespace and line breaks.`;
          if (count > 1 && !replaceAll) {
            return `Error: old_string occurs ${count} times in "${path}". Include more surrounding text so it matches once, or set replace_all to true.`;
          }
          // split/join and slicing insert new_string literally: String.replace would expand `$&`, `$1`, `$$`.
          const updated = replaceAll ? content.split(oldText).join(newText) : spliceOnce(content, oldText, newText);
          const refused = refuseWrite(context, path, updated);
          if (refused) return refused;
          await context.files.write(path, updated);
          recordWrite(context, path, updated);
          return `Edited ${path}: replaced ${replaceAll ? count : 1} occurrence${(replaceAll ? count : 1) === 1 ? '' : 's'}.`;
        }),
    }),

    delete_file: tool({
      description: 'Deletes a file. Remember to remove links and navigation entries that point to it.',
      inputSchema: z.object({ path: z.string().describe('File relative to the repository root.') }),
      execute: ({ path }) =>
        answer(path, async () => {
          await context.files.remove(path);
          context.seen.delete(pathKey(path));
          moveWrites(context, path, null);
          return `Deleted ${path}.`;
        }),
    }),

    move_file: tool({
      description: 'Moves or renames a file, creating missing folders. Remember to update links and navigation entries that point to the old path.',
      inputSchema: z.object({
        from: z.string().describe('Current path relative to the repository root.'),
        to: z.string().describe('New path relative to the repository root.'),
      }),
      execute: ({ from, to }) =>
        answer(from, async () => {
          await context.files.move(from, to);
          if (context.seen.delete(pathKey(from))) context.seen.add(pathKey(to));
          moveWrites(context, from, to);
          return `Moved ${from} to ${to}.`;
        }),
    }),
  };
}

function spliceOnce(content: string, oldText: string, newText: string): string {
  const index = content.indexOf(oldText);
  return content.slice(0, index) + newText + content.slice(index + oldText.length);
}
