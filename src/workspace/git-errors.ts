import { RE2JS } from 're2js';
import { GitCommandError } from './git.ts';
import { WorkspaceGitError } from './types.ts';
import { displayRepository } from '../lib/display-repository.ts';

// Git's stderr carries what the remote sends, and the remote is whatever server a project names: these
// two patterns scan arbitrary text after a prefix the server can repeat, which a backtracking engine
// does in time quadratic in the output's length, so they run on RE2.
const rejectedPush = RE2JS.compile('!\\s*\\[(?:remote )?rejected\\][^\\n]*\\(([^)]+)\\)');
const forbidden = RE2JS.compile('(?i)\\b403\\b|permission to .* denied|access denied');

/**
 * Turns git's output into a sentence a user can act on. Git's own stderr is already free of
 * credentials (see `scrubSecrets`); it is quoted only when no clearer message fits.
 */
export function explainGitError(error: unknown, action: 'fetch' | 'push', repository: string, branch?: string): Error {
  if (!(error instanceof GitCommandError)) return error instanceof Error ? error : new Error(String(error));
  const where = displayRepository(repository);
  const stderr = error.stderr;
  if (/could not read (Username|Password)|Authentication failed|terminal prompts disabled|\b401\b/i.test(stderr)) {
    return new WorkspaceGitError(
      `Git could not sign in to ${where}: check the code host token or app (it needs read and write access to the repository contents).`,
    );
  }
  const rejected = rejectedPush.exec(stderr);
  if (action === 'push' && rejected) {
    return new WorkspaceGitError(
      `${where} rejected the push of branch ${branch} (${rejected[1]}). Someone else may have pushed to it or a branch protection rule refuses it; send a follow-up to try again.`,
    );
  }
  if (forbidden.test(stderr)) {
    const need = action === 'push' ? 'write' : 'read';
    return new WorkspaceGitError(
      `${where} refused ${action === 'push' ? 'the push' : 'access'} (HTTP 403): give the code host token ${need} access to the repository contents.`,
    );
  }
  if (/not found|does not appear to be a git repository|\b404\b|does not exist|no such file or directory/i.test(stderr)) {
    return new WorkspaceGitError(
      `Repository ${where} was not found, or the credentials cannot see it: check the project's repository setting and the code host token.`,
    );
  }
  const detail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400);
  return new WorkspaceGitError(`git ${action} for ${where} failed: ${detail || `exit code ${error.exitCode}`}.`);
}
