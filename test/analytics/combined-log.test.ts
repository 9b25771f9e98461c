import fc from 'fast-check';
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

  it('reads each time as Date.UTC does, whether or not the line before shared its hour and offset', () => {
    const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const two = (value: number) => String(value).padStart(2, '0');
    const stamp = fc.record({
      day: fc.integer({ min: 0, max: 33 }),
      month: fc.integer({ min: 0, max: 12 }),
      year: fc.integer({ min: 0, max: 9999 }),
      hour: fc.integer({ min: 0, max: 25 }),
      sign: fc.constantFrom('+', '-', '*'),
      offset: fc.integer({ min: 0, max: 1459 }),
    });
    const second = fc.record({ minute: fc.integer({ min: 0, max: 61 }), second: fc.integer({ min: 0, max: 62 }) });
    const expected = (
      time: { day: number; month: number; year: number; hour: number; sign: string; offset: number },
      within: { minute: number; second: number },
    ) => {
      const valid = time.day >= 1 && time.day <= 31 && time.month < 12 && time.hour <= 23 && time.sign !== '*' && within.minute <= 59 && within.second <= 60;
      if (!valid) return NaN;
      const offset = (time.sign === '-' ? -1 : 1) * (Math.floor(time.offset / 100) * 60 + (time.offset % 100)) * 60_000;
      return Date.UTC(time.year, time.month, time.day, time.hour, within.minute, within.second) - offset;
    };
    fc.assert(
      fc.property(stamp, fc.array(second, { minLength: 1, maxLength: 4 }), (time, seconds) => {
        for (const within of seconds) {
          const text = `${two(time.day)}/${monthNames[time.month] ?? 'Xyz'}/${String(time.year).padStart(4, '0')}:${two(time.hour)}:${two(within.minute)}:${two(within.second)} ${time.sign}${String(time.offset).padStart(4, '0')}`;
          const parsed = parse(`203.0.113.7 - - [${text}] "GET /a HTTP/1.1" 200 1 "-" "curl/8.5.0"`);
          const at = 'events' in parsed ? parsed.events[0].at : NaN;
          expect(at, text).toBe(expected(time, within));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
