import { networkFailure } from '../lib/network-failure.ts';
import { CodeHostError } from './types.ts';

interface HttpFailure {
  status?: number;
  message?: string;
  response?: { data?: unknown };
}

/**
 * A failed GitHub call as a `CodeHostError`: what Quire tried, GitHub's own explanation, and what to
 * change. Octokit's error message may quote the request, so only the response body's `message` and
 * `errors` are used; neither contains the token.
 */
export function explainGithubError(error: unknown, attempt: string, permissions: string): CodeHostError {
  if (error instanceof CodeHostError) return error;
  const failure = (error ?? {}) as HttpFailure;
  // Octokit reports a request that got no answer (DNS, refused, timeout) as status 500 without a response.
  const unreachable = failure.response === undefined ? networkFailure(error) : null;
  if (unreachable !== null) return new CodeHostError(`GitHub could not be reached to ${attempt} (${unreachable}); check GITHUB_API_URL and the network.`);
  const status = typeof failure.status === 'number' ? failure.status : undefined;
  const data = (failure.response?.data ?? {}) as { message?: string; errors?: { message?: string; code?: string }[] };
  const details = [data.message, ...(data.errors ?? []).map((entry) => entry.message ?? entry.code)].filter(Boolean).join('; ');
  const said = details ? ` GitHub said: ${details}.` : '';
  if (status === 401)
    return new CodeHostError(
      `GitHub did not accept the credentials while trying to ${attempt} (401): check GITHUB_TOKEN or the GitHub App id and private key.${said}`,
      status,
    );
  if (status === 403) return new CodeHostError(`GitHub refused to ${attempt} (403): ${permissions}.${said}`, status);
  if (status === 404)
    return new CodeHostError(
      `GitHub could not ${attempt} (404): the repository does not exist or the credentials cannot see it; ${permissions}.${said}`,
      status,
    );
  if (status === 422) return new CodeHostError(`GitHub could not ${attempt} (422).${said || ' The request was invalid.'}`, status);
  if (status !== undefined) return new CodeHostError(`GitHub could not ${attempt} (HTTP ${status}); try again later.${said}`, status);
  return new CodeHostError(
    `GitHub could not be reached to ${attempt}: ${error instanceof Error ? error.name : 'unknown error'}; check GITHUB_API_URL and the network.`,
  );
}
