import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { visitorHash } from '../../src/analytics/ingest/visitor-hash.ts';

/** The visitor key as stored before: Node's own HMAC, the first 22 characters of its base64url digest. */
const reference = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('base64url').slice(0, 22);

describe('visitor hash', () => {
  // Secrets shorter than, as long as and longer than SHA-256's 64-byte block (a longer key is hashed first), and one not ASCII.
  const secrets = ['s', 'x'.repeat(64), 'k'.repeat(65), 'a long project secret '.repeat(10), 'sécret-ünïcode-🔑'];
  const agent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

  it('is HMAC-SHA-256 of the tracker id, or of the IP address and user agent, with the project secret', () => {
    for (const secret of secrets) {
      expect(visitorHash(secret, { visitorId: 'abc' })).toBe(reference(secret, 'id\nabc'));
      expect(visitorHash(secret, { visitorId: 'abc', ip: '203.0.113.5', userAgent: agent })).toBe(reference(secret, 'id\nabc'));
      expect(visitorHash(secret, { ip: '203.0.113.5', userAgent: agent })).toBe(reference(secret, `ip\n203.0.113.5\n${agent}`));
      expect(visitorHash(secret, { ip: '2001:db8::1' })).toBe(reference(secret, 'ip\n2001:db8::1\n'));
      expect(visitorHash(secret, {})).toBe(reference(secret, 'ip\n\n'));
    }
  });

  it('reads user agents that are not ASCII, and long ones, as UTF-8, whatever came before', () => {
    const agents = ['Bot/1.0 (ünïcödé; 日本語; 🤖)', 'A'.repeat(2048), '€'.repeat(2048), 'short'];
    for (const userAgent of agents) {
      expect(visitorHash('secret', { ip: '198.51.100.7', userAgent })).toBe(reference('secret', `ip\n198.51.100.7\n${userAgent}`));
    }
  });

  it('gives the same person unrelated keys in two projects', () => {
    const key = { ip: '203.0.113.5', userAgent: agent };
    expect(visitorHash('first', key)).not.toBe(visitorHash('second', key));
    expect(visitorHash('first', key)).toBe(reference('first', `ip\n203.0.113.5\n${agent}`));
    expect(visitorHash('second', key)).toBe(reference('second', `ip\n203.0.113.5\n${agent}`));
  });
});
