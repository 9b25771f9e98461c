import { setImmediate as nextTurn } from 'node:timers/promises';
import { RE2JS } from 're2js';
import type { Command } from './commands.ts';
import { CommandError, UsageError } from './errors.ts';

/** Only the start of a very long line is returned with a match. */
const maxLineCharacters = 500;

/**
 * RE2's matching time is linear in the text and in the compiled program: `\pL{1000}`, repeated to fill a
 * command, compiles to 450,000 instructions and took 4.9 s on one 170-character line. Ripgrep's own
 * patterns (`auth.*token`, `\bconfig\b`, `(?i)rate limit`) compile to a few dozen. At this size the
 * costliest pattern tests 100,000 characters in about 40 ms (a line is matched whole, as ripgrep does:
 * cutting it would let `$` match at the cut), so only a page of one very long line holds a turn longer.
 */
export const maxProgramSize = 250;
/** Matching gives the event loop a turn this often, so a search over a large site holds no request up. */
const sliceMs = 10;
/** The most matching time a command takes, over all its pages. */
const budgetMs = 2_000;

const flagsByOption: Record<string, 'ignoreCase' | 'filesOnly'> = {
  '-i': 'ignoreCase',
  '--ignore-case': 'ignoreCase',
  '-l': 'filesOnly',
  '--files-with-matches': 'filesOnly',
};

/**
 * `rg [-i] [-l] pattern [path]`: the lines of the pages that match, as `path:line:text`. Patterns
 * run on RE2 (re2js), whose matching time is linear in the text: a pattern such as `(a+)+$` that
 * would backtrack for hours elsewhere cannot stall the server; the pattern's size is bounded too, and
 * the matching of a large site takes turns with requests. RE2's syntax is ripgrep's own.
 */
export const rg: Command = async (args, tree) => {
  const { options, operands } = parseOptions(args);
  if (operands.length < 1 || operands.length > 2) throw new UsageError('rg takes a pattern and at most one path.');
  const [pattern, path] = operands;
  const expression = compile(pattern, options.has('ignoreCase'));
  const files = tree.filesUnder(tree.requireEntry(path));
  const lines: string[] = [];
  const started = performance.now();
  let slice = started;
  for (const { path: filePath, file } of files) {
    const content = (await file.read()).split('\n');
    const matching: string[] = [];
    for (let index = 0; index < content.length; index++) {
      const line = content[index];
      if (expression.test(line)) matching.push(`${filePath}:${index + 1}:${line.slice(0, maxLineCharacters)}`);
      const now = performance.now();
      if (now - slice < sliceMs) continue;
      if (now - started > budgetMs) {
        throw new CommandError(
          `rg stopped after ${budgetMs / 1000} s of matching, in ${filePath}: the pattern is too costly over this many pages. Give a folder path, or a simpler pattern.`,
        );
      }
      await nextTurn();
      slice = performance.now();
    }
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
  let expression: RE2JS;
  try {
    expression = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new CommandError(
      `${JSON.stringify(pattern.slice(0, 100))} is not a valid pattern (${reason}). Patterns use RE2 syntax, as ripgrep does: ` +
        'no backreferences or lookaround; escape ( [ . * with a backslash, or quote the pattern, to match them literally.',
    );
  }
  if (expression.programSize() > maxProgramSize) {
    throw new CommandError(
      `${JSON.stringify(pattern.slice(0, 100))} is too large a pattern (${expression.programSize()} instructions compiled, at most ${maxProgramSize}): ` +
        'use fewer counted repetitions such as {100}, or search for a shorter text.',
    );
  }
  return expression;
}
