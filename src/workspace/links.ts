import { runGit } from './git.ts';

/** Git's file mode of a symbolic link. */
const linkMode = '120000';

/**
 * The paths of the symbolic links committed in the checkout or snapshot at `dir`, from git's index
 * (one command, no walk of the files). Listings skip links that lead out of the tree; a docs build
 * reads these to say which pages it refused.
 */
export async function symbolicLinks(dir: string): Promise<string[]> {
  const output = await runGit(['ls-files', '--stage', '-z'], { cwd: dir });
  return output
    .split('\0')
    .filter((entry) => entry.startsWith(`${linkMode} `))
    .map((entry) => entry.slice(entry.indexOf('\t') + 1));
}
