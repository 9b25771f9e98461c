import { RE2JS } from 're2js';
import type { Command } from './commands.ts';
import { CommandError, UsageError } from './errors.ts';

/** Only the start of a very long line is returned with a match. */
const maxLineCharacters = 500;

const flagsByOption: Record<string, 'ignoreCase' | 'filesOnly'> = {
  '-i': 'ignoreCase',
  '--ignore-case': 'ignoreCase',
  '-l': 'filesOnly',
  '--files-with-matches': 'filesOnly',
};

/**
 * `rg [-i] [-l] pattern [path]`: the lines of the pages that match, as `path:line:text`. Patterns
 * run on RE2 (re2js), whose matching time is linear in the text: a pattern such as `(a+)+$` that
 * would backtrack for hours elsewhere cannot stall the server. RE2's syntax is ripgrep's own.
 */
export const rg: Command = async (args, tree) => {
  const { options, operands } = parseOptions(args);
  if (operands.length < 1 || operands.length > 2) throw new UsageError('rg takes a pattern and at most one path.');
  const [pattern, path] = operands;
  const expression = compile(pattern, options.has('ignoreCase'));
  const files = tree.filesUnder(tree.requireEntry(path));
  const lines: string[] = [];
  for (const { path: filePath, file } of files) {
    const content = (await file.read()).split('\n');
    const matching = content.flatMap((line, index) => (expression.test(line) ? [`${filePath}:${index + 1}:${line.slice(0, maxLineCharacters)}`] : []));
    if (matching.length === 0) continue;
    if (options.has('filesOnly')) lines.push(filePath);
    else lines.push(...matching);
  }
  if (lines.length === 0) return [{ text: `No matches for ${JSON.stringify(pattern)}${path ? ` in ${path}` : ''}.\n` }];
  return [{ text: `${lines.join('\n')}\n` }];
};

function parseOptions(args: string[]): { options: Set<string>; operands: string[] } {
  const options = new Set<string>();
  let index = 0;
  for (; index < args.length && args[index].startsWith('-') && args[index] !== '-'; index++) {
    const argument = args[index];
    if (argument === '--') {
      index++;
      break;
    }
    const letters = argument.startsWith('--') ? [argument] : [...argument.slice(1)].map((letter) => `-${letter}`);
    for (const option of letters) {
      if (!(option in flagsByOption)) throw new UsageError(`rg does not take ${option}.`);
      options.add(flagsByOption[option]);
    }
  }
  return { options, operands: args.slice(index) };
}

function compile(pattern: string, ignoreCase: boolean): RE2JS {
  try {
    return RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new CommandError(
      `${JSON.stringify(pattern.slice(0, 100))} is not a valid pattern (${reason}). Patterns use RE2 syntax, as ripgrep does: ` +
        'no backreferences or lookaround; escape ( [ . * with a backslash, or quote the pattern, to match them literally.',
    );
  }
}
