import { describe, expect, it } from 'vitest';
import { prepareRequest } from '../../src/analytics/feedback/ingest.ts';
import { parseEventsBody, unpackRequest } from '../../src/analytics/http/events-body.ts';
import { ParsePool } from '../../src/analytics/http/parse-pool.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const now = Date.UTC(2026, 5, 1);
/** Views of both visitor kinds, a referrer with a campaign, feedback and searches, and refused events. */
const events = Array.from({ length: 2000 }, (_, index) => {
  if (index % 250 === 3) return { kind: 'feedback', source: 'thumbs_only', path: '/guide', helpful: index % 2 === 0 };
  if (index % 250 === 4) return { kind: 'search', query: `setup ${index}`, hits: index % 4 };
  if (index % 250 === 5) return { path: 'no-slash' };
  return {
    timestamp: now - index * 1000,
    path: index % 7 === 0 ? `/guide/${index % 30}.md?utm_source=chatgpt.com` : `/guide/${index % 30}`,
    userAgent: index % 11 === 0 ? 'GPTBot/1.2' : chrome,
    ...(index % 2 === 0 ? { visitorId: `v-${index % 400}` } : { ip: `203.0.113.${index % 200}` }),
    referrer: index % 5 === 0 ? 'https://www.example.org/somewhere' : undefined,
    status: index % 13 === 0 ? 404 : 200,
  };
});
const text = JSON.stringify({ events });

describe('parse pool', () => {
  it('prepares a large body in a thread exactly as the event loop would', async () => {
    const pool = new ParsePool(1);
    try {
      const parsed = await pool.parse(text, false, now);
      if (parsed.failure !== undefined) throw new Error(parsed.failure);
      expect(parsed.count).toBe(2000);
      expect(parsed.body).toEqual({ events: [] });
      const expected = prepareRequest(events, now);
      expect(expected.errors).toHaveLength(8);
      expect(expected.interactions).toHaveLength(16);
      expect(unpackRequest(parsed.prepared!)).toEqual(expected);
    } finally {
      await pool.close();
    }
  });

  it('answers a body whose thread went away, parsing it where it arrived', async () => {
    const pool = new ParsePool(1);
    const pending = pool.parse(text, false, now);
    await pool.close();
    const parsed = await pending;
    expect(parsed).toEqual(parseEventsBody(text, false, now));
  });
});
