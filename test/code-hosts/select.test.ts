import { describe, expect, it } from 'vitest';
import { repositoryPath } from '../../src/code-hosts/repository-path.ts';
import { codeHostFor } from '../../src/code-hosts/select.ts';
import { CodeHostError } from '../../src/code-hosts/types.ts';
import { testConfig } from '../support/app.ts';

describe('codeHostFor', () => {
  const config = testConfig({ githubServerUrl: 'https://github.com', gitlabUrl: 'https://gitlab.acme.test/gitlab' });

  it('chooses the host from the repository address', () => {
    expect(codeHostFor('https://github.com/acme/docs', config).name).toBe('github');
    expect(codeHostFor('https://gitlab.acme.test/gitlab/group/sub/docs.git', config).name).toBe('gitlab');
    expect(codeHostFor('/srv/git/docs.git', config).name).toBe('local');
    expect(codeHostFor('file:///srv/git/docs.git', config).name).toBe('local');
    expect(codeHostFor('https://git.acme.test/acme/docs', testConfig({ githubServerUrl: 'https://git.acme.test' })).name).toBe('github');
  });

  it('refuses addresses on unknown servers with a message that says what to set', () => {
    expect(() => codeHostFor('https://gitlab.acme.test/other/docs', config)).toThrow(CodeHostError);
    expect(() => codeHostFor('https://bitbucket.org/acme/docs', config)).toThrow(/set GITHUB_SERVER_URL or GITLAB_URL/);
    expect(() => codeHostFor('https://evil.test/github.com/acme/docs', config)).toThrow(CodeHostError);
  });

  it('never repeats credentials of the configured servers to whoever named another server', () => {
    const withCredentials = testConfig({
      githubServerUrl: 'https://ci:ghp_server_secret@git.acme.test',
      gitlabUrl: 'https://root:glpat-secret@gitlab.acme.test',
    });
    let message = '';
    try {
      codeHostFor('https://bitbucket.org/acme/docs', withCredentials);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('(https://git.acme.test)');
    expect(message).toContain('(https://gitlab.acme.test)');
    expect(message).not.toMatch(/ghp_server_secret|glpat-secret|ci:|root:/);
  });

  it('reads a repository address a user typed with a long run of slashes inside it, in linear time', () => {
    // A project's repository can be set from the dashboard; trimming it with /\/+$/ took minutes here.
    const slashes = '/'.repeat(200_000);
    expect(repositoryPath(`https://github.com/acme${slashes}docs.git///`, 'https://github.com')).toBe('acme/docs');
    expect(() => codeHostFor(`https://bitbucket.org/acme${slashes}docs`, config)).toThrow(/set GITHUB_SERVER_URL or GITLAB_URL/);
  });
});
