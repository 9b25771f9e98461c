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

  it('drops them from an address Node cannot read as a URL too', () => {
    // A port out of range makes `new URL` throw.
    expect(displayRepository('https://u:ghp_SECRET@github.com:99999/x')).toBe('https://github.com:99999/x');
    expect(displayRepository('https://u:p@ss:ghp_SECRET@[::1/x')).not.toContain('ghp_SECRET');
  });
});
