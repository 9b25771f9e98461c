/**
 * The repository as it may appear in messages and views: any user name or password in the URL is dropped.
 * Addresses holding them are refused now, but projects and jobs saved before may still hold one.
 */
export function displayRepository(repository: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(repository)) return repository;
  try {
    const url = new URL(repository);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    // Not a URL Node can read (a port out of range, say): the user name and password go all the same.
    return repository.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
  }
}
