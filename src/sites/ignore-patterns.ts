import { RE2JS } from 're2js';

/** Longer lines are not patterns anyone wrote; they are skipped (matching time grows with a pattern's length). */
const maxPatternCharacters = 500;
/**
 * Patterns one list may hold: each is matched against every file of the site and each of its folders, so a
 * repository's list of a hundred thousand lines would hold a build for hours. Skipping the rest would publish
 * pages the site leaves out, so a longer list fails the build (or check) with what to do instead.
 */
export const maxIgnorePatterns = 200;

interface IgnorePattern {
  expression: RE2JS;
  /** `!pattern`: keeps what an earlier pattern left out. */
  negated: boolean;
  /** `pattern/`: matches folders only. */
  folderOnly: boolean;
}

/**
 * A matcher of `/`-separated relative paths for `.gitignore`-style lines (MkDocs `exclude_docs` and
 * `draft_docs`, Mintlify `.mintignore`): `#` comments, `!` negation, a trailing `/` for folders, a
 * leading or inner `/` anchoring the pattern, `*`, `?`, `[…]` and `**`, `\` escaping. A pattern matches
 * a path or one of its folders. Which pattern decides is as MkDocs' `pathspec.GitIgnoreSpec` has it:
 * the last matching one, except that a match on the path itself outranks a negation matching only a
 * folder of it. The lines come from the repository, so they run on RE2 (linear time in the path's
 * length), never a backtracking engine; a line RE2 cannot compile is skipped.
 */
export function ignoreMatcher(lines: Iterable<string>, source = 'The ignore list'): (relativePath: string) => boolean {
  const patterns: IgnorePattern[] = [];
  for (const line of lines) {
    const pattern = readPattern(line);
    if (pattern === null) continue;
    if (patterns.length === maxIgnorePatterns)
      throw new Error(
        `${source} has more than ${maxIgnorePatterns} patterns, the most Quire reads; merge them into fewer with wildcards (docs/*-draft.md) or folders (drafts/).`,
      );
    patterns.push(pattern);
  }
  if (patterns.length === 0) return () => false;
  return (relativePath) => {
    const folders: string[] = [];
    for (let slash = relativePath.indexOf('/'); slash >= 0; slash = relativePath.indexOf('/', slash + 1)) folders.push(relativePath.slice(0, slash));
    let ignored = false;
    let decidedByPath = false;
    for (const { expression, negated, folderOnly } of patterns) {
      const byPath = !folderOnly && expression.testExact(relativePath);
      if (!byPath && !folders.some((folder) => expression.testExact(folder))) continue;
      // Only a negation matching a folder alone cannot undo what a pattern matching the path itself decided.
      if (byPath || !negated || !decidedByPath) {
        ignored = !negated;
        decidedByPath = byPath;
      }
    }
    return ignored;
  };
}

function readPattern(line: string): IgnorePattern | null {
  let text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.startsWith('#') || text.length > maxPatternCharacters) return null;
  // Trailing spaces are dropped unless the last is escaped (`\ `).
  let end = text.length;
  while (end > 0 && text[end - 1] === ' ' && text[end - 2] !== '\\') end--;
  text = text.slice(0, end);
  const negated = text.startsWith('!');
  if (negated) text = text.slice(1);
  const folderOnly = text.endsWith('/');
  if (folderOnly) text = text.slice(0, -1);
  const anchored = text.includes('/');
  if (text.startsWith('/')) text = text.slice(1);
  if (text === '') return null;
  const source = (anchored ? '' : '(?:.*/)?') + patternSource(text);
  try {
    return { expression: RE2JS.compile(source, RE2JS.DOTALL), negated, folderOnly };
  } catch {
    // Git ignores a pattern it cannot read, and so does Quire.
    return null;
  }
}

/** `**` as a whole segment spans any number of folders (first, inner or last); inside a segment it is `*`. */
function patternSource(pattern: string): string {
  const segments = pattern.split('/');
  let source = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') source += last ? '.*' : '(?:.*/)?';
    else source += segmentSource(segment) + (last ? '' : '/');
  });
  return source;
}

function segmentSource(segment: string): string {
  let source = '';
  for (let index = 0; index < segment.length; index++) {
    const character = segment[index];
    if (character === '\\' && index + 1 < segment.length) {
      source += RE2JS.quote(segment[++index]);
    } else if (character === '*') {
      source += '[^/]*';
    } else if (character === '?') {
      source += '[^/]';
    } else if (character === '[' && classEnd(segment, index) > 0) {
      const end = classEnd(segment, index);
      source += characterClass(segment.slice(index + 1, end));
      index = end;
    } else {
      source += RE2JS.quote(character);
    }
  }
  return source;
}

/** The `]` closing a class opened at `start`, a `]` right after `[` or `[!` being a member; -1 when none. */
function classEnd(segment: string, start: number): number {
  let index = start + 1;
  if (segment[index] === '!' || segment[index] === '^') index++;
  if (segment[index] === ']') index++;
  return segment.indexOf(']', index);
}

/** `[abc]`, `[a-z]`, `[!abc]` and `[^abc]`; a negated class never matches the separator. */
function characterClass(members: string): string {
  const negated = members.startsWith('!') || members.startsWith('^');
  const listed = (negated ? members.slice(1) : members).replace(/[\\\][]/g, '\\$&');
  return negated ? `[^/${listed}]` : `[${listed}]`;
}
