/**
 * Why `name` is not a usable git branch name, or null when it is. The rules of
 * `git check-ref-format --branch`, checked character by character (no regular expression runs on a
 * name a client chose), narrowed to the characters Quire's workspaces accept: letters, digits, `.`,
 * `_`, `-` and `/`, at most 200 of them.
 */
export function refNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > 200) return 'must be 1 to 200 characters long';
  if (name === 'HEAD' || name === '@') return `cannot be "${name}"`;
  if (name.startsWith('-')) return 'cannot start with "-"';
  if (name.startsWith('/') || name.endsWith('/')) return 'cannot start or end with "/"';
  if (name.endsWith('.')) return 'cannot end with "."';
  for (let index = 0; index < name.length; index++) {
    const character = name[index];
    if (!isAllowed(character)) return `cannot contain ${JSON.stringify(character)}; use letters, digits, ".", "_", "-" and "/"`;
    const next = name[index + 1];
    if (character === '.' && next === '.') return 'cannot contain ".."';
    if (character === '/' && next === '/') return 'cannot contain "//"';
  }
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'no part between "/" may start with "."';
    if (component.endsWith('.lock')) return 'no part between "/" may end with ".lock"';
  }
  return null;
}

function isAllowed(character: string): boolean {
  const code = character.charCodeAt(0);
  const letterOrDigit = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return letterOrDigit || character === '.' || character === '_' || character === '-' || character === '/';
}
