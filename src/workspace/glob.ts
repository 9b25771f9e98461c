/**
 * Compiles a glob (`*`, `?`, `**`, `{a,b}`, `[abc]`) to a regular expression over `/`-separated
 * relative paths. A pattern without `/` matches the file name in any folder, as in `.gitignore`, so
 * `*.md` finds every Markdown file.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  const expression = new RegExp(`^${globSource(pattern)}$`);
  if (pattern.includes('/')) return (path) => expression.test(path);
  return (path) => expression.test(path.slice(path.lastIndexOf('/') + 1));
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
    } else if (character === '[') {
      const end = pattern.indexOf(']', index + 1);
      if (end === -1) {
        source += '\\[';
      } else {
        const members = pattern.slice(index + 1, end).replace(/^!/, '^').replace(/[\\\]]/g, '\\$&');
        source += `[${members}]`;
        index = end;
      }
    } else {
      source += character.replace(/[.+^$()|\\/]/g, '\\$&');
    }
  }
  return source + ')'.repeat(braces);
}
