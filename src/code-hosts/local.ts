import { jobBranchPrefix, jobIdOfBranch } from '../lib/job-branch.ts';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publicUrl, type Config } from '../config/config.ts';
import { runGit } from '../workspace/git.ts';
import { writeLocalDescription } from './local-description.ts';
import { CodeHostError, type CodeHost, type CodeHostProvider } from './types.ts';

/** A repository on this machine as a path: `/srv/docs.git` or `file:///srv/docs.git`. */
export function localRepositoryPath(repository: string): string | null {
  if (repository.startsWith('file://')) return fileURLToPath(repository);
  return isAbsolute(repository) ? resolve(repository) : null;
}

/** The dashboard page of a job's change in a local repository (dashboard/pages/changes.ts). */
export function changePath(jobId: string): string {
  return `/dashboard/changes/${encodeURIComponent(jobId)}`;
}

/**
 * A local repository has no review tool, so Quire serves one page per change on the dashboard: the
 * job branch's diff against its base, with its title, body and draft state, for the job's organization only. The
 * workspace has already pushed the branch there.
 */
export function localHost(config: Config): CodeHost {
  return {
    name: 'local',
    async gitCredentials() {
      return undefined;
    },
    async openOrUpdatePullRequest(request) {
      const path = localRepositoryPath(request.repository);
      const jobId = request.jobId ?? jobIdOfBranch(request.branch);
      if (!path || jobId === null) {
        throw new CodeHostError(
          `Quire shows changes only of job branches (${jobBranchPrefix}<job id>) in local repositories; got ${request.branch} in ${request.repository}.`,
        );
      }
      const pushed = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${request.branch}`], { cwd: path }).then(
        () => true,
        () => false,
      );
      if (!pushed) throw new CodeHostError(`Branch ${request.branch} is not in ${path}; push it before showing the change.`);
      await writeLocalDescription(path, jobId, { title: request.title, body: request.body, draft: request.draft ?? false });
      // A local change has no number of its own; the job id names it.
      return { number: 0, url: `${publicUrl(config)}${changePath(jobId)}`, draft: request.draft ?? false };
    },
  };
}

/** Local repositories need no credentials: which ones an organization may use is granted (access.ts). */
export const localProvider: CodeHostProvider = {
  name: 'local',
  label: 'a local repository',
  connectionKinds: [],
  serverCredentialsMissing: () => null,
  withServerCredentials: localHost,
  withConnection: async (config) => localHost(config),
};
