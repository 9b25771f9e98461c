import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { updateIpRanges } from '../../src/analytics/ingest/verify/ip-range-update.ts';
import { loadOperatorRanges, rangeSources, rangeVerification, rangesDirectory } from '../../src/analytics/ingest/verify/operator-ranges.ts';
import { Verification } from '../../src/analytics/model/verification.ts';

// The operators' format: what openai.com, Google, Bing, Perplexity, Apple and DuckDuckGo serve.
const published = (prefixes: string[]) =>
  JSON.stringify(
    {
      creationTime: '2026-11-20T10:00:00.000000',
      prefixes: prefixes.map((prefix) => (prefix.includes(':') ? { ipv6Prefix: prefix } : { ipv4Prefix: prefix })),
    },
    null,
    2,
  );

describe('refreshing the published IP ranges', () => {
  let server: Server;
  let base: string;
  let directory: string;
  const requested: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const file = (request.url ?? '').slice(1);
      requested.push(file);
      if (file === 'bingbot.json') return void response.writeHead(503).end('busy');
      if (file === 'applebot.json') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>moved</html>');
      const ranges = file === 'gptbot.json' ? ['198.51.100.0/24', '2001:db8:1::/48'] : ['192.0.2.0/28'];
      response.writeHead(200, { 'content-type': 'application/json' }).end(published(ranges));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    loadOperatorRanges();
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('downloads every source of the index, keeps the copy of a source that fails or is not a range file, and verification uses the new ranges', async () => {
    directory = await mkdtemp(join(tmpdir(), 'quire-ranges-'));
    const shippedApple = await readFile(new URL('applebot.json', rangesDirectory), 'utf8');
    await writeFile(join(directory, 'applebot.json'), shippedApple);
    const results = await updateIpRanges({ directory: pathToFileURL(`${directory}/`), urlOf: (source) => `${base}/${source.file}` });

    expect(results.map((result) => result.file).sort()).toEqual(rangeSources.map((source) => source.file).sort());
    expect(results.find((result) => result.file === 'gptbot.json')).toMatchObject({ ranges: 2 });
    expect(results.find((result) => result.file === 'bingbot.json')?.error).toMatch(/503/);
    expect(results.find((result) => result.file === 'applebot.json')?.error).toMatch(/not a range file/);
    expect(await readFile(join(directory, 'applebot.json'), 'utf8')).toBe(shippedApple);
    expect(JSON.parse(await readFile(join(directory, 'gptbot.json'), 'utf8')).prefixes).toHaveLength(2);

    loadOperatorRanges(pathToFileURL(`${directory}/`));
    expect(rangeVerification('GPTBot/1.2', '198.51.100.20')).toBe(Verification.verified);
    expect(rangeVerification('GPTBot/1.2', '20.171.206.7')).toBe(Verification.spoofed);
    expect(rangeVerification('bingbot/2.0', '192.0.2.1')).toBe(Verification.unknown);
  });

  it('says the machine looks offline when no host answers', async () => {
    directory = await mkdtemp(join(tmpdir(), 'quire-ranges-'));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const results = await updateIpRanges({ directory: pathToFileURL(`${directory}/`), urlOf: (source) => `http://127.0.0.1:${port}/${source.file}` });
    expect(results.every((result) => /is this machine online/.test(result.error ?? ''))).toBe(true);
  });
});
