import { RE2JS } from 're2js';
import { WorkspacePathError } from './types.ts';

/** Longer globs are refused: a path pattern is short, and matching time grows with the pattern's length. */
const maxGlobCharacters = 500;

/**
 * Compiles a glob (`*`, `?`, `**`, `{a,b}`, `[abc]`, `[!abc]`) to a matcher of `/`-separated
 * relative paths. A pattern without `/` matches the file name in any folder, as in `.gitignore`, so
 * `*.md` finds every Markdown file. The glob comes from the model, so it runs on RE2 (linear time
 * in the path's length): with a backtracking engine `*a*a*a…b` against a long name of `a`s would
 * hold the process for hours.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  if (pattern.length > maxGlobCharacters) {
    throw new WorkspacePathError(
      `The glob has ${pattern.length} characters, more than the ${maxGlobCharacters} Quire accepts; give a shorter pattern, or list a folder without one.`,
    );
  }
  const expression = compile(pattern);
  if (pattern.includes('/')) return (path) => expression.testExact(path);
  return (path) => expression.testExact(path.slice(path.lastIndexOf('/') + 1));
}

function compile(pattern: string): RE2JS {
  try {
    return RE2JS.compile(globSource(pattern), RE2JS.DOTALL);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new WorkspacePathError(`"${pattern}" is not a valid glob (${reason}); use *, ?, **, {a,b}, [abc] and [!abc], or list without a pattern.`);
  }
}

function globSource(pattern: string): string {
  let source = '';
  let braces = 0;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '*' && pattern[index + 1] === '*') {
      const slashFollows = pattern[index + 2] === '/';
      source += slashFollows ? '(?:.*/)?' : '.*';
      index += slashFollows ? 2 : 1;
    } else if (character === '*') {
      source += '[^/]*';
    } else if (character === '?') {
      source += '[^/]';
    } else if (character === '{') {
      braces++;
      source += '(?:';
    } else if (character === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (character === ',' && braces > 0) {
      source += '|';
    } else if (character === '[' && pattern.indexOf(']', index + 1) !== -1) {
      const end = pattern.indexOf(']', index + 1);
      source += characterClass(pattern.slice(index + 1, end));
      index = end;
    } else {
      source += RE2JS.quote(character);
    }
  }
  return source + ')'.repeat(braces);
}

/** `[abc]`, `[a-z]`, `[!abc]` and `[^abc]`; the other characters inside stand for themselves. */
function characterClass(members: string): string {
  const negated = members.startsWith('!') || members.startsWith('^');
  const listed = (negated ? members.slice(1) : members).replace(/[\\\][]/g, '\\$&');
  // RE2 has no empty class: `[]` matches no character and `[!]` any one, as they did before.
  if (listed === '') return negated ? '[\\x00-\\x{10FFFF}]' : '[^\\x00-\\x{10FFFF}]';
  return `[${negated ? '^' : ''}${listed}]`;
}
