import { describe, expect, it } from 'vitest';
import { explainGitError } from '../../src/workspace/git-errors.ts';
import { GitCommandError } from '../../src/workspace/git.ts';

const explain = (stderr: string) =>
  explainGitError(new GitCommandError(['push'], stderr, 1), 'push', 'https://git.example.test/acme/docs', 'quire/job_1').message;

describe('git errors as sentences', () => {
  it('recognizes a rejected push and a refusal', () => {
    expect(explain(' ! [rejected]        quire/job_1 -> quire/job_1 (fetch first)\nerror: failed to push some refs')).toMatch(
      /rejected the push of branch quire\/job_1 \(fetch first\)/,
    );
    expect(explain('remote: Permission to acme/docs.git denied to bot.\nfatal: unable to access')).toMatch(/refused the push \(HTTP 403\)/);
    expect(explain('fatal: unable to access: The requested URL returned error: 403')).toMatch(/refused the push \(HTTP 403\)/);
  });

  it('reads what a hostile server sends without backtracking over it', () => {
    // A project may name any server; with a backtracking engine each of these took longer than minutes.
    expect(explain(`remote: ${'permission to '.repeat(20_000)}`)).toMatch(/^git push for https:\/\/git.example.test\/acme\/docs failed: remote: permission to/);
    expect(explain(' ! [rejected] x ('.repeat(20_000))).toMatch(/^git push for .* failed: ! \[rejected\] x \(/);
  });
});
