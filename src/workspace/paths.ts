import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { WorkspacePathError } from './types.ts';

export interface ConfinedPath {
  /** Absolute path on disk. */
  absolute: string;
  /** Normalized path relative to the workspace root ('' for the root itself). */
  relative: string;
}

/**
 * Resolves a path the model gave to a location inside the workspace, or throws a `WorkspacePathError`
 * that tells the model what to do instead. `root` must already be a real path (no symlinks).
 * Symbolic links are checked component by component: a repository may itself contain links to `/etc`,
 * to `..` or into `.git`, and a path through any of them is refused.
 */
export async function confine(root: string, input: string, options: { allowRoot?: boolean } = {}): Promise<ConfinedPath> {
  const segments = pathSegments(input, options);
  for (let index = 1; index <= segments.length; index++) {
    const prefix = segments.slice(0, index).join('/');
    const info = await lstat(join(root, prefix)).catch(() => null);
    if (!info) break;
    if (info.isSymbolicLink() && !(await linkStaysInside(root, join(root, prefix)))) {
      const through = prefix === segments.join('/') ? `"${input}" is a symbolic link` : `"${input}" passes through the symbolic link "${prefix}", which`;
      throw new WorkspacePathError(
        `${through} points outside the repository or into .git; Quire does not follow such links. Work with the regular files inside the repository instead.`,
      );
    }
  }
  const normalized = segments.join('/');
  return { absolute: normalized ? join(root, normalized) : root, relative: normalized };
}

/**
 * The segments of a path relative to the repository root, or a `WorkspacePathError` for a path no
 * reader may take whatever the files are: NUL characters, absolute paths, `..`, anything in `.git`.
 */
export function pathSegments(input: string, options: { allowRoot?: boolean } = {}): string[] {
  if (input.includes('\0')) throw new WorkspacePathError('Paths cannot contain NUL characters.');
  if (isAbsolute(input) || /^[A-Za-z]:[\\/]/.test(input) || input.startsWith('~')) {
    throw new WorkspacePathError(`"${input}" is an absolute path; give a path relative to the repository root, such as docs/index.md.`);
  }
  const segments = input.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    throw new WorkspacePathError(`"${input}" uses ".." to leave its folder; give a path relative to the repository root without "..".`);
  }
  if (segments.some(isGitFolder)) {
    throw new WorkspacePathError(`"${input}" is inside .git, which holds git's own data; work only on the repository's files.`);
  }
  if (segments.length === 0 && !options.allowRoot) {
    throw new WorkspacePathError('Give the path of a file relative to the repository root, such as docs/index.md.');
  }
  return segments;
}

async function linkStaysInside(root: string, link: string): Promise<boolean> {
  const target = await realpath(link).catch(() => null);
  // A dangling link could be made to point anywhere by writing through it.
  if (target === null) return false;
  if (target === root) return true;
  if (!target.startsWith(root + sep)) return false;
  return !relative(root, target).split(sep).some(isGitFolder);
}

export function isGitFolder(segment: string): boolean {
  return segment.toLowerCase() === '.git';
}
