import type { GitCredentials } from '../workspace/types.ts';

export interface PullRequestRequest {
  /** Repository URL as configured on the project. */
  repository: string;
  /** The job branch (`quire/<job id>`). */
  branch: string;
  /** Branch the pull request merges into. */
  base: string;
  title: string;
  body: string;
  draft?: boolean;
  /** Number of the job's pull request from an earlier run: update it instead of opening another. */
  existingNumber?: number | null;
}

export interface PullRequest {
  number: number;
  /** Page a person opens in a browser. */
  url: string;
}

/** A service that holds repositories and reviews changes: GitHub, GitLab, or a local repository. */
export interface CodeHost {
  name: 'github' | 'gitlab' | 'local';
  /** Credentials for cloning and pushing over HTTPS (none for local repositories). */
  gitCredentials(repository: string): Promise<GitCredentials | undefined>;
  /** Opens the pull request (merge request), or updates the existing one. */
  openOrUpdatePullRequest(request: PullRequestRequest): Promise<PullRequest>;
}

/** A code host refused or failed a request; the message is safe to show (no tokens). */
export class CodeHostError extends Error {
  override name = 'CodeHostError';
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}
