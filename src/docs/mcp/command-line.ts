import { CommandError } from './errors.ts';

/**
 * Splits a filesystem command into words the way a shell would quote them, and refuses everything
 * else a shell would do. Nothing here ever reaches a shell: the words go to Quire's own commands,
 * so operators, substitutions and globs are errors that say so rather than characters taken
 * literally, which would leave an agent wondering why `cat a; ls` found no file named `a;`.
 */

/** Longest command accepted, in characters. */
const maxCommandCharacters = 4096;

const operators: Record<string, string> = {
  '|': 'pipes (|)',
  '&': 'chaining and background jobs (&, &&)',
  ';': 'command separators (;)',
  '<': 'redirections (<)',
  '>': 'redirections (>)',
  '(': 'subshells ( )',
  ')': 'subshells ( )',
  '`': 'command substitution (`…`)',
  $: 'variables and command substitution ($)',
  '*': 'globs (*)',
  '?': 'globs (?)',
  '[': 'globs ([…])',
};

/** Characters a backslash escapes inside double quotes; before any other it stays a backslash. */
const doubleQuoteEscapes = new Set(['\\', '"', '$', '`']);

export function splitCommandLine(line: string): string[] {
  if (line.length > maxCommandCharacters) {
    throw new CommandError(`The command has ${line.length} characters, more than the ${maxCommandCharacters} accepted; give a shorter command.`);
  }
  if (line.includes('\0')) throw new CommandError('The command contains a NUL character, which no path or pattern can hold.');
  const words: string[] = [];
  let word: string | undefined;
  let index = 0;
  const take = (text: string) => (word = (word ?? '') + text);
  while (index < line.length) {
    const character = line[index];
    if (/\s/.test(character)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      index++;
    } else if (character === "'") {
      const end = closingQuote(line, index, "'");
      take(line.slice(index + 1, end));
      index = end + 1;
    } else if (character === '"') {
      index = readDoubleQuoted(line, index + 1, take);
    } else if (character === '\\') {
      if (index + 1 >= line.length) throw new CommandError('The command ends with a lone backslash; remove it or escape the character after it.');
      take(line[index + 1]);
      index += 2;
    } else if (character in operators) {
      throw new CommandError(
        `Unsupported shell syntax: ${operators[character]}. This is not a shell: run one command per call, and quote a pattern that contains ${character} ('like this').`,
      );
    } else {
      take(character);
      index++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Reads a double-quoted string from `start` (after the quote) and returns the index after its closing quote. */
function readDoubleQuoted(line: string, start: number, take: (text: string) => void): number {
  const end = closingQuote(line, start - 1, '"');
  // "" is an empty word, not nothing.
  take('');
  let index = start;
  while (index < end) {
    const character = line[index];
    if (character === '\\' && doubleQuoteEscapes.has(line[index + 1])) {
      take(line[index + 1]);
      index += 2;
    } else if ((character === '$' && /[A-Za-z_{(]/.test(line[index + 1] ?? '')) || character === '`') {
      throw new CommandError(
        'Unsupported shell syntax: variables and command substitution ($name, $(…), `…`) are not expanded. Use single quotes for a literal $ or `.',
      );
    } else {
      take(character);
      index++;
    }
  }
  return end + 1;
}

function closingQuote(line: string, open: number, quote: string): number {
  let index = open + 1;
  while (index < line.length && line[index] !== quote) index += quote === '"' && line[index] === '\\' ? 2 : 1;
  if (index >= line.length) throw new CommandError(`The command has an unclosed ${quote} quote; close it or escape it with a backslash.`);
  return index;
}
