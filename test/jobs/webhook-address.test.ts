import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/lib/public-address.ts';
import { parseEndpointUrl, vetEndpoint, WebhookAddressError } from '../../src/jobs/webhooks/address.ts';
import { PinnedAgents, sendOnce } from '../../src/jobs/webhooks/send.ts';

describe('where webhooks may be sent', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast, unspecified and their IPv6 forms', () => {
    const refused = [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.255',
      '224.0.0.1',
      '239.255.255.250',
      '0.0.0.0',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      'fec0::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '::127.0.0.1',
      '64:ff9b::a00:1',
      '::ffff:0:7f00:1',
      '::ffff:0:a00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
    ];
    for (const address of refused) expect(isPublicAddress(address), address).toBe(false);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1'])
      expect(isPublicAddress(address), address).toBe(true);
  });

  it('takes only absolute http(s) URLs without credentials', () => {
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      '/relative',
      'https://user:secret@example.com/',
      `https://example.com/${'a'.repeat(2000)}`,
    ]) {
      expect(() => parseEndpointUrl(url), url).toThrow(WebhookAddressError);
    }
    expect(parseEndpointUrl('https://example.com/hooks?token=1').toString()).toBe('https://example.com/hooks?token=1');
  });

  it('resolves the host and refuses it when any of its addresses is not public, unless allowed', async () => {
    await expect(vetEndpoint(new URL('http://localhost:8080/'), false)).rejects.toThrow(/non-public address/);
    await expect(vetEndpoint(new URL('http://[::ffff:127.0.0.1]/'), false)).rejects.toThrow(/non-public address/);
    await expect(vetEndpoint(new URL('http://quire-test.invalid/'), false)).rejects.toThrow(/could not be resolved/);
    expect(await vetEndpoint(new URL('http://127.0.0.1:9/'), true)).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await vetEndpoint(new URL('http://93.184.216.34/'), false)).toEqual({ address: '93.184.216.34', family: 4 });
  });
});

describe('connecting to the vetted address', () => {
  let server: ReturnType<typeof createServer>;
  let port: number;
  const hosts: string[] = [];

  beforeAll(async () => {
    server = createServer((incoming, response) => {
      hosts.push(incoming.headers.host ?? '');
      response.writeHead(incoming.url === '/redirect' ? 307 : 200, { location: '/elsewhere' }).end('x'.repeat(10_000));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends to the address checked, whatever the name would resolve to now (no DNS rebinding)', async () => {
    const agents = new PinnedAgents();
    // A name that resolves nowhere: the request still reaches the vetted address, with the name as Host.
    const origin = `http://rebinding.invalid:${port}`;
    const response = await request(`${origin}/hook`, { method: 'POST', body: '{}', dispatcher: agents.get(origin, { address: '127.0.0.1', family: 4 }, 1000) });
    await response.body.dump();
    expect(response.statusCode).toBe(200);
    expect(hosts.at(-1)).toBe(`rebinding.invalid:${port}`);
    await agents.close();
  });

  it('keeps only an excerpt of the answer and does not follow redirects', async () => {
    const agents = new PinnedAgents();
    const options = { timeoutMs: 2000, allowPrivate: true, agents };
    const answered = await sendOnce(`http://127.0.0.1:${port}/hook`, {}, '{}', options);
    expect(answered).toMatchObject({ statusCode: 200, error: null });
    expect(answered.excerpt?.length).toBe(512);
    const before = hosts.length;
    const redirected = await sendOnce(`http://127.0.0.1:${port}/redirect`, {}, '{}', options);
    expect(redirected.statusCode).toBe(307);
    expect(hosts.length).toBe(before + 1);
    const refused = await sendOnce(`http://127.0.0.1:${port}/hook`, {}, '{}', { ...options, allowPrivate: false });
    expect(refused).toMatchObject({ statusCode: null });
    expect(refused.error).toMatch(/non-public address/);
    await agents.close();
  });
});
