import { trimTrailingSlashes } from '../lib/trim.ts';
import { CodeHostError } from './types.ts';

/**
 * The repository's path on its host, `owner/name` (GitLab: `group/subgroup/name`), from a URL
 * such as `https://github.com/acme/docs.git`. `serverUrl` may carry a path prefix (a GitLab
 * instance under `/gitlab`), which is not part of the repository path.
 */
export function repositoryPath(repository: string, serverUrl: string, minimumSegments = 2): string {
  const prefix = trimTrailingSlashes(new URL(serverUrl).pathname);
  const path = trimTrailingSlashes(new URL(repository).pathname).replace(/\.git$/, '');
  const relative = path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : path.replace(/^\//, '');
  const segments = relative.split('/').filter(Boolean);
  if (segments.length < minimumSegments) {
    throw new CodeHostError(`${repository} does not name a repository; use an address like ${serverUrl}/owner/name.`);
  }
  return segments.join('/');
}

/** The repository URL's origin and path prefix match `serverUrl` (`https://github.com`, say). */
export function isUnder(repository: string, serverUrl: string | undefined): boolean {
  if (!serverUrl || !/^https?:\/\//i.test(repository)) return false;
  try {
    const url = new URL(repository);
    const server = new URL(serverUrl);
    const prefix = trimTrailingSlashes(server.pathname);
    return url.origin === server.origin && (prefix === '' || url.pathname.startsWith(`${prefix}/`));
  } catch {
    return false;
  }
}
