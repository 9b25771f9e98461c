import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/agent/redact.ts';
import { testConfig } from '../support/app.ts';

describe('redaction of credentials in transcripts and pull requests', () => {
  const redact = createRedactor(testConfig({ githubToken: 'configured-token-value' }), ['git-password-1']);

  it('replaces configured values and every known token shape', () => {
    const text = [
      'quire_0123456789abcdefXYZ',
      `github_pat_${'A1_'.repeat(10)}`,
      `ghp_${'a1B2'.repeat(6)}`,
      `glpat-${'x-_y'.repeat(6)}`,
      `sk-ant-${'k'.repeat(24)}`,
      `sk-${'s'.repeat(40)}`,
      'configured-token-value git-password-1',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- after',
    ].join('\n');
    expect(redact(text)).toBe(
      ['[redacted]', '[redacted]', '[redacted]', '[redacted]', '[redacted]', '[redacted]', '[redacted] [redacted]', '[redacted] after'].join('\n'),
    );
  });

  it('leaves short look-alikes, and text around an unclosed key block, as they are', () => {
    const text = `sk-short quire_x ghp_abc ${'-----BEGIN PRIVATE KEY-----\n'.repeat(2000)}end`;
    expect(redact(text)).toBe(text);
    expect(redact(`${text}-----END PRIVATE KEY----- tail`)).toBe('sk-short quire_x ghp_abc [redacted] tail');
  });
});
