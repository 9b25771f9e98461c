/**
 * The repository as it may appear in messages and views: any user name or password in the URL is dropped,
 * and nothing else changes (a URL rebuilt by `new URL` is normalised, so a settings form that shows it and
 * sends it back would save another address). Addresses holding credentials are refused now, but projects and
 * jobs saved before may still hold one.
 */
export function displayRepository(repository: string): string {
  return repository.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1');
}
