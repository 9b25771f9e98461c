import { runGit } from '../workspace/git.ts';
import { readLocalDescription, type LocalDescription } from './local-description.ts';

/** Larger diffs are cut: the page is for reading a documentation change, not for huge imports. */
export const maxDiffBytes = 1024 * 1024;

export interface LocalChange {
  base: string;
  branch: string;
  commits: { id: string; author: string; subject: string }[];
  stat: string;
  diff: string;
  truncated: boolean;
  /** Title, body and draft state the job gave the change; null before it was opened. */
  description: LocalDescription | null;
}

/**
 * The job branch's change against its base in a local repository, as `git diff base...branch`
 * shows it: only what the branch added since it left the base. Null when the branch does not exist.
 */
export async function readLocalChange(repository: string, jobId: string, branch: string, ref: string | null): Promise<LocalChange | null> {
  const git = (args: string[]) => runGit(args, { cwd: repository });
  const exists = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).then(
    () => true,
    () => false,
  );
  if (!exists) return null;
  const base = ref ?? (await git(['symbolic-ref', '--short', 'HEAD'])).trim();
  const range = `refs/heads/${base}...refs/heads/${branch}`;
  const log = await git(['log', '--format=%h%x09%an%x09%s', `refs/heads/${base}..refs/heads/${branch}`]);
  const commits = log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, author, ...subject] = line.split('\t');
      return { id, author, subject: subject.join('\t') };
    });
  const stat = await git(['diff', '--stat', '--no-color', range]);
  const diff = await git(['diff', '--no-color', '--no-ext-diff', range]);
  const truncated = Buffer.byteLength(diff) > maxDiffBytes;
  const description = await readLocalDescription(repository, jobId);
  return { base, branch, commits, stat, diff: truncated ? diff.slice(0, maxDiffBytes) : diff, truncated, description };
}
