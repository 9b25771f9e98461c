import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit } from '../workspace/git.ts';

/** What a local change has instead of a pull request: its title, body and whether it is a draft. */
export interface LocalDescription {
  title: string;
  body: string;
  draft: boolean;
}

/**
 * Kept in the local repository itself, beside the branch, as a blob under `refs/quire/changes/<job id>`:
 * the repository is the code host, so what a code host would store about the change lives there too.
 */
function descriptionRef(jobId: string): string {
  return `refs/quire/changes/${jobId}`;
}

export async function writeLocalDescription(repository: string, jobId: string, description: LocalDescription): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'quire-change-'));
  try {
    const file = join(folder, 'description.json');
    await writeFile(file, JSON.stringify(description));
    const blob = (await runGit(['hash-object', '-w', file], { cwd: repository })).trim();
    await runGit(['update-ref', descriptionRef(jobId), blob], { cwd: repository });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The change's description, or null for a change opened before descriptions were kept. */
export async function readLocalDescription(repository: string, jobId: string): Promise<LocalDescription | null> {
  const text = await runGit(['cat-file', 'blob', descriptionRef(jobId)], { cwd: repository }).catch(() => null);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<LocalDescription>;
    return { title: String(value.title ?? ''), body: String(value.body ?? ''), draft: value.draft === true };
  } catch {
    return null;
  }
}
