import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyConnection } from '../../src/code-hosts/connect.ts';
import { codeHostFor } from '../../src/code-hosts/select.ts';
import { CodeHostError } from '../../src/code-hosts/types.ts';
import { testConfig } from '../support/app.ts';
import { startGitlabServer, type GitlabServer } from '../support/gitlab-server.ts';
import { refusingUrl } from '../support/refusing-url.ts';

const token = 'glpat-test-0123456789abcdef';
let server: GitlabServer;

beforeAll(async () => {
  server = await startGitlabServer({ token });
});
afterAll(() => server.close());

describe('GitLab code host', () => {
  it('opens a merge request, then updates the same one', async () => {
    const repository = `${server.url}/acme/docs-team/docs.git`;
    const host = codeHostFor(repository, testConfig({ gitlabUrl: server.url, gitlabToken: token }));
    expect(host.name).toBe('gitlab');
    expect(await host.gitCredentials(repository)).toEqual({ username: 'oauth2', password: token });

    const request = { repository, branch: 'quire/job_7', base: 'main', title: 'Fix install steps', body: 'Corrected the guide.' };
    const opened = await host.openOrUpdatePullRequest({ ...request, draft: true });
    expect(opened).toEqual({ number: 1, url: `${server.url}/acme/docs-team/docs/-/merge_requests/1`, draft: true });
    expect(server.mergeRequests[0]).toMatchObject({
      project: 'acme/docs-team/docs',
      source_branch: 'quire/job_7',
      target_branch: 'main',
      title: 'Draft: Fix install steps',
      description: 'Corrected the guide.',
    });

    const updated = await host.openOrUpdatePullRequest({ ...request, body: 'Corrected the guide and the FAQ.', existingNumber: 1 });
    expect(updated.number).toBe(1);
    expect(server.requests.at(-1)?.method).toBe('PUT');
    expect(server.mergeRequests).toHaveLength(1);
    expect(server.mergeRequests[0].description).toBe('Corrected the guide and the FAQ.');

    const reused = await host.openOrUpdatePullRequest({ ...request, body: 'Retried.' });
    expect(reused.number).toBe(1);
    expect(server.mergeRequests).toHaveLength(1);
  });

  it('explains a refusal without the token', async () => {
    const repository = `${server.url}/acme/locked.git`;
    const host = codeHostFor(repository, testConfig({ gitlabUrl: server.url, gitlabToken: token }));
    server.refuse = { status: 403, message: '403 Forbidden' };
    try {
      const error = await host.openOrUpdatePullRequest({ repository, branch: 'quire/job_8', base: 'main', title: 'T', body: 'B' }).then(
        () => null,
        (caught: unknown) => caught as CodeHostError,
      );
      expect(error).toBeInstanceOf(CodeHostError);
      expect(error?.status).toBe(403);
      expect(error?.message).toMatch(/refused to open a merge request on acme\/locked \(403\).*api and write_repository/);
      expect(error?.message).not.toContain(token);
    } finally {
      server.refuse = null;
    }
  });

  it('says GitLab could not be reached, and why, when the request gets no answer', async () => {
    const checkToken = (gitlabUrl: string) =>
      identifyConnection(testConfig({ gitlabUrl }), { kind: 'gitlab', token }).then(
        () => null,
        (caught: unknown) => caught as CodeHostError,
      );
    const refused = await checkToken(await refusingUrl());
    expect(refused?.message).toMatch(
      /^GitLab could not be reached to check the token \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); check GITLAB_URL and the network\.$/,
    );
    const unknown = await checkToken('http://gitlab.invalid');
    expect(unknown?.message).toMatch(/^GitLab could not be reached to check the token \(getaddrinfo (ENOTFOUND|EAI_AGAIN) gitlab\.invalid\); check GITLAB_URL/);
    expect(`${refused?.message} ${unknown?.message}`).not.toContain(token);
  });

  it('asks for GITLAB_TOKEN when it is missing', async () => {
    const host = codeHostFor(`${server.url}/acme/docs.git`, testConfig({ gitlabUrl: server.url }));
    await expect(host.gitCredentials(`${server.url}/acme/docs.git`)).rejects.toThrow(/set GITLAB_TOKEN/);
  });
});
