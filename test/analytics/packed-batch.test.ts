import { describe, expect, it } from 'vitest';
import { packBatch, unpackBatch } from '../../src/analytics/model/packed-batch.ts';
import { MarkdownRequest } from '../../src/analytics/model/markdown-request.ts';
import type { PreparedEvent } from '../../src/analytics/model/prepared-event.ts';
import { countries, lookUpCountry } from '../../src/analytics/ingest/dimensions/countries.ts';

const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('packed batches (reading thread to storing thread)', () => {
  it('give back every field of every event, including absent ones and signed requests', () => {
    const events: PreparedEvent[] = [
      {
        at: 1_767_225_600_123,
        path: '/docs/a',
        markdown: MarkdownRequest.none,
        userAgent: chrome,
        visitorKey: { ip: '203.0.113.9', userAgent: chrome },
        status: 200,
        referrer: 'https://example.com/x',
        utmSource: 'news',
        eventKey: 'abcdefgh0000000001',
        verification: 1,
        signed: null,
        visitorHash: 'AbCdEfGhIjKlMnOpQrStUv',
      },
      {
        at: 1_767_225_600_999,
        path: '/docs/a.md',
        markdown: MarkdownRequest.asked,
        userAgent: 'GPTBot/1.2',
        visitorKey: { visitorId: 'tracker-id' },
        status: null,
        referrer: null,
        utmSource: null,
        eventKey: null,
        verification: 2,
        signed: { path: '/docs/a.md', headers: { signature: 'sig1=:AAAA:', 'signature-agent': '"https://chatgpt.com"' } },
      },
      {
        at: 0,
        path: '/docs/a',
        markdown: MarkdownRequest.none,
        userAgent: '',
        visitorKey: {},
        status: 0,
        referrer: '',
        utmSource: '',
        eventKey: '',
        verification: 0,
        signed: null,
      },
    ];
    // Through a real message's cloning, as between the threads.
    const packed = structuredClone(packBatch({ events, end: 4096 }));
    expect(packed.texts.filter((text) => text === '/docs/a')).toHaveLength(1);
    const { events: back, end } = unpackBatch(packed);
    expect(end).toBe(4096);
    expect(back).toStrictEqual(events);
  });

  it("carry each event's country when packed with the lookup, the same as ingestion finds on its own", () => {
    const at = 1_767_225_600_000;
    const event = (visitorKey: PreparedEvent['visitorKey']): PreparedEvent => ({
      at,
      path: '/docs/a',
      markdown: MarkdownRequest.none,
      userAgent: chrome,
      visitorKey,
      status: 200,
      referrer: null,
      utmSource: null,
      eventKey: null,
      verification: 0,
      signed: null,
    });
    const keys = [
      { ip: '8.8.8.8' },
      { ip: '10.0.0.1' },
      { ip: '2a00:1450:4001:81b::200e' },
      { visitorId: 'tracker-id' },
      { ip: '8.8.8.8' },
      { ip: 'not an address' },
    ];
    const events = keys.map(event);
    const { events: back } = unpackBatch(structuredClone(packBatch({ events, end: 0 }, lookUpCountry)));
    expect(back.map((event) => event.country)).toStrictEqual(keys.map((key) => countries.lookupUncached(key.ip ?? '')));
    expect(back[0].country).toMatch(/^[A-Z]{2}$/);
    expect(back[1].country).toBeNull();
    // Without the lookup, events carry no country and ingestion looks it up itself.
    expect(unpackBatch(packBatch({ events, end: 0 })).events.every((event) => !('country' in event))).toBe(true);
  });
});
