import { describe, expect, it } from 'vitest';
import { acceptsMarkdownFirst, preferredCoding } from '../../src/lib/accept.ts';

describe('content negotiation', () => {
  const kept = ['br', 'gzip'] as const;

  it('answers the kept coding the client ranks highest, the server’s order breaking ties', () => {
    expect(preferredCoding('gzip, deflate, br, zstd', kept)).toBe('br');
    expect(preferredCoding('gzip', kept)).toBe('gzip');
    expect(preferredCoding('br;q=0.5, gzip;q=0.9', kept)).toBe('gzip');
    expect(preferredCoding('*', kept)).toBe('br');
    expect(preferredCoding('GZIP', kept)).toBe('gzip');
  });

  it('answers the file as it is when no kept coding is acceptable or identity ranks first', () => {
    expect(preferredCoding(undefined, kept)).toBeNull();
    expect(preferredCoding('', kept)).toBeNull();
    expect(preferredCoding('deflate', kept)).toBeNull();
    expect(preferredCoding('br;q=0, gzip;q=0', kept)).toBeNull();
    expect(preferredCoding('*;q=0', kept)).toBeNull();
    expect(preferredCoding('br;q=0, *', kept)).toBe('gzip');
    expect(preferredCoding('identity, gzip;q=0.2', kept)).toBeNull();
    expect(preferredCoding('zstd, identity;q=0', kept)).toBeNull();
  });

  it('takes hostile headers without throwing', () => {
    expect(preferredCoding(`${'gzip;q=abc,'.repeat(10_000)}br`, kept)).toBe('br');
    expect(preferredCoding(';;;,,,=', kept)).toBeNull();
    expect(acceptsMarkdownFirst(`${'text/markdown;q=x,'.repeat(10_000)}`)).toBe(false);
  });
});
