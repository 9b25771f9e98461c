import { join } from 'node:path';
import { readTextFile } from './text.ts';
import type { FileEntry, SearchMatch } from './types.ts';

/** Search stops after this many matches; the caller tells the model to narrow the pattern. */
export const maxSearchMatches = 500;
/** Files larger than this are skipped: generated files, not pages. */
export const maxSearchFileBytes = 1024 * 1024;
/** Only the start of very long lines is searched and returned, which also bounds regex run time. */
const maxLineCharacters = 2000;
const maxMatchTextCharacters = 300;

/**
 * Searches text files line by line. The pattern is a JavaScript regular expression; one that does
 * not compile is searched for literally, so `foo(` still finds something.
 */
export async function searchFiles(root: string, files: FileEntry[], pattern: string): Promise<SearchMatch[]> {
  const expression = compile(pattern);
  const matches: SearchMatch[] = [];
  for (const file of files) {
    if (file.size > maxSearchFileBytes) continue;
    const content = await readTextFile(join(root, file.path)).catch(() => null);
    if (content === null) continue;
    const lines = content.split('\n');
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index].slice(0, maxLineCharacters);
      if (!expression.test(line)) continue;
      matches.push({ path: file.path, line: index + 1, text: line.slice(0, maxMatchTextCharacters) });
      if (matches.length >= maxSearchMatches) return matches;
    }
  }
  return matches;
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  }
}
