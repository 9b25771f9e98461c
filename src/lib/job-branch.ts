/** Every job works on its own branch, `quire/<job id>`: created by the job, pushed, shown, swept. */
export const jobBranchPrefix = 'quire/';

export function jobBranch(jobId: string): string {
  return `${jobBranchPrefix}${jobId}`;
}

/** The job id a job branch names, or null for any other branch. */
export function jobIdOfBranch(branch: string): string | null {
  return branch.startsWith(jobBranchPrefix) ? branch.slice(jobBranchPrefix.length) : null;
}
