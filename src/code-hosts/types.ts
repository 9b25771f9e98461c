import type { OpenedConnection } from '../accounts/connections.ts';
import type { ConnectionKind } from '../storage/tables/accounts.ts';
import type { Config } from '../config/config.ts';
import type { GitCredentials } from '../workspace/types.ts';

export interface PullRequestRequest {
  /** Repository URL as configured on the project. */
  repository: string;
  /** The job branch (`quire/<job id>`, or the one the create request named). */
  branch: string;
  /** The job the pull request is for (local repositories name their change page by it). */
  jobId?: string;
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
  /** Whether the code host says the pull request is a draft now, when it says (GitHub keeps an updated one's draft state). */
  draft?: boolean;
}

/** A service that holds repositories and reviews changes: GitHub, GitLab, or a local repository. */
export interface CodeHost {
  name: 'github' | 'gitlab' | 'local';
  /** Credentials for cloning and pushing over HTTPS (none for local repositories). */
  gitCredentials(repository: string): Promise<GitCredentials | undefined>;
  /** Opens the pull request (merge request), or updates the existing one. */
  openOrUpdatePullRequest(request: PullRequestRequest): Promise<PullRequest>;
}

/**
 * A kind of code host and the credentials it needs: an organization's own connections of
 * `connectionKinds`, or the server-wide ones from the environment when the operator allows it.
 */
export interface CodeHostProvider {
  name: CodeHost['name'];
  /** How the host is named in messages (GitHub, GitLab, a local repository). */
  label: string;
  /** The connection kinds an organization can hold for this host (none for local repositories). */
  connectionKinds: readonly ConnectionKind[];
  /** The sentence saying which server-wide variables to set, or null when they are set. */
  serverCredentialsMissing(config: Config): string | null;
  /** The host acting with the server-wide credentials. */
  withServerCredentials(config: Config): CodeHost;
  /** The host acting with the organization's connection; a CodeHostError when the connection cannot reach `repository`. */
  withConnection(config: Config, connection: OpenedConnection, repository: string): Promise<CodeHost>;
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
