import { describe, expect, it } from 'vitest';
import { formats } from '../../src/analytics/importers/formats.ts';

const parse = (line: string) => {
  const parsed = formats.combined.parse(line, new Map());
  return 'skip' in parsed ? parsed : { events: parsed.requests };
};
const prefix = '203.0.113.7 - - [21/Nov/2026:09:30:00 +0000] "GET ';

describe('combined access-log lines', () => {
  it('keeps escaped quotes inside the path and reads the request without a protocol', () => {
    expect(parse(`${prefix}/a\\"b HTTP/1.1" 200 10 "-" "curl/8.5.0"`)).toMatchObject({ events: [{ path: '/a\\"b', status: 200, userAgent: 'curl/8.5.0' }] });
    expect(parse(`${prefix}/legacy" 200 10`)).toMatchObject({ events: [{ path: '/legacy', status: 200 }] });
  });

  it('skips a cut-off line of hundreds of kilobytes without backtracking over it', () => {
    // With the earlier pattern this one line took minutes: time grew with the square of its length.
    const lines = [`${prefix}/${'a'.repeat(300_000)}`, `${prefix}/docs ${'x'.repeat(300_000)}`, `${prefix}${'a\\"'.repeat(100_000)}`];
    for (const line of lines) expect(parse(line)).toEqual({ skip: 'not a combined log line (unterminated "request")' });
  });
});
