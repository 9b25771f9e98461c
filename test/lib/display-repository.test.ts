import { describe, expect, it } from 'vitest';
import { displayRepository } from '../../src/lib/display-repository.ts';

describe('a repository as messages and views show it', () => {
  it('drops the user name and password of a URL, and leaves paths and URLs without them as they are', () => {
    expect(displayRepository('https://ci:ghp_token@github.com/acme/docs')).toBe('https://github.com/acme/docs');
    expect(displayRepository('https://ghp_token@github.com/acme/docs.git')).toBe('https://github.com/acme/docs.git');
    expect(displayRepository('https://github.com/acme/docs')).toBe('https://github.com/acme/docs');
    expect(displayRepository('/srv/repositories/docs.git')).toBe('/srv/repositories/docs.git');
    expect(displayRepository('git@github.com:acme/docs.git')).toBe('git@github.com:acme/docs.git');
  });

  it('changes nothing else, so a form that shows it and sends it back saves the same address', () => {
    for (const repository of [
      'https://GitHub.com/acme/docs',
      'file://localhost/srv/docs',
      'https://host:443/a',
      'https://host/my docs',
      'https://github.com',
    ]) {
      expect(displayRepository(repository)).toBe(repository);
    }
    expect(displayRepository('https://ci:tok@GitHub.com:443/acme/my docs')).toBe('https://GitHub.com:443/acme/my docs');
  });

  it('drops them from an address Node cannot read as a URL too', () => {
    // A port out of range makes `new URL` throw.
    expect(displayRepository('https://u:ghp_SECRET@github.com:99999/x')).toBe('https://github.com:99999/x');
    expect(displayRepository('https://u:p@ss:ghp_SECRET@[::1/x')).not.toContain('ghp_SECRET');
    expect(displayRepository('https://user:pa#ss?ghp_SECRET@host/x')).toBe('https://host/x');
  });
});
