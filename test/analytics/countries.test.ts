import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CountryDatabase, countries, countryFiles, disjointRanges } from '../../src/analytics/ingest/dimensions/countries.ts';
import { updateCountries } from '../../src/analytics/ingest/dimensions/country-update.ts';

const file = (name: string) => readFileSync(createRequire(import.meta.url).resolve(`@ip-location-db/geo-whois-asn-country/${name}`), 'utf8');
const dotted = (value: number) => [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');

describe('country lookup', () => {
  const lines = file(countryFiles.v4)
    .trim()
    .split('\n')
    .map((line) => line.split(','))
    .map(([start, end, code]) => ({ start: Number(start), end: Number(end), code }));

  /** Private and reserved blocks, written as CIDR: no country whatever the file says (it places 192.168.0.0/16 in AU). */
  const reserved = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16', '224.0.0.0/3'].map(
    (cidr) => {
      const [base, bits] = cidr.split('/');
      const value = base.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
      return { low: value, high: value + 2 ** (32 - Number(bits)) - 1 };
    },
  );
  const isPrivate = (address: number) => reserved.some(({ low, high }) => address >= low && address <= high);
  /** The answer by a plain scan: the narrowest published range holding the address (none for private and reserved blocks). */
  const byScan = (address: number) => {
    if (isPrivate(address)) return null;
    let best: { start: number; end: number; code: string } | null = null;
    for (const line of lines) if (line.start <= address && address <= line.end && (!best || line.end - line.start < best.end - best.start)) best = line;
    return best?.code ?? null;
  };

  it('answers as a scan of the published IPv4 ranges, at and beside every bound of a sample, nested ranges included', () => {
    const database = new CountryDatabase();
    const addresses = new Set<number>();
    for (let index = 0; index < lines.length; index += Math.floor(lines.length / 40)) {
      const { start, end } = lines[index];
      for (const address of [start - 1, start, (start + end) >>> 1, end, end + 1]) if (address >= 0 && address <= 0xffffffff) addresses.add(address);
    }
    // The nested range the published file holds (a /32 inside a larger block of another country).
    for (const address of [37405966, 37405967, 37405968]) addresses.add(address);
    for (const address of addresses) expect(database.country(dotted(address)), dotted(address)).toBe(byScan(address));
  });

  it('reads IPv6 and IPv4-mapped addresses, and gives none for private, reserved or malformed ones', () => {
    expect(countries.country('::ffff:8.8.8.8')).toBe(countries.country('8.8.8.8'));
    expect(countries.country('8.8.8.8')).toBe('US');
    expect(countries.country('81.2.69.160')).toBe('GB');
    for (const address of ['10.0.0.1', '192.168.1.1', '127.0.0.1', '::1', 'fe80::1', '', 'not an address', '1.2.3', '256.1.1.1', '01.2.3.4'])
      expect(countries.country(address), address).toBeNull();
    const v6 = file(countryFiles.v6).trim().split('\n').slice(0, 400);
    for (const line of v6.filter((_, index) => index % 40 === 0)) {
      const [start, , code] = line.split(',');
      const value = BigInt(start);
      const groups = Array.from({ length: 8 }, (_, group) => ((value >> BigInt(112 - group * 16)) & 0xffffn).toString(16));
      // A range's first address, unless a narrower range starts there too (then that one answers).
      const narrower = v6.some((other) => other !== line && other.startsWith(`${start},`));
      if (!narrower) expect(countries.country(groups.join(':')), groups.join(':')).toBe(code);
    }
  });

  it('makes nested and overlapping ranges disjoint, the narrower answering inside', () => {
    expect(
      disjointRanges(
        [
          { start: 0, end: 99, code: 'AA' },
          { start: 10, end: 19, code: 'BB' },
          { start: 15, end: 15, code: 'CC' },
          { start: 50, end: 59, code: 'DD' },
        ],
        1,
      ),
    ).toEqual([
      { start: 0, end: 9, code: 'AA' },
      { start: 10, end: 14, code: 'BB' },
      { start: 15, end: 15, code: 'CC' },
      { start: 16, end: 19, code: 'BB' },
      { start: 20, end: 49, code: 'AA' },
      { start: 50, end: 59, code: 'DD' },
      { start: 60, end: 99, code: 'AA' },
    ]);
  });
});

describe('quire analytics update-countries', () => {
  let server: Server;
  let base: string;
  const bodies = new Map<string, string>();
  beforeAll(async () => {
    server = createServer((request, response) => {
      const body = bodies.get(request.url!.split('/').pop()!);
      response.writeHead(body === undefined ? 404 : 200).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/files/`;
  });
  afterAll(() => server.close());

  it('replaces the files with downloads that parse, keeps them on a garbled one, and lookups read the new copy', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'quire-countries-'));
    const url = pathToFileURL(`${directory}/`);
    try {
      bodies.set(countryFiles.v4, '16777216,16777471,FR\n134744072,134744072,DE\n');
      bodies.set(countryFiles.v6, '42540528726795050063891204319802818560,42540528806023212578155541913346768895,JP\n');
      expect(await updateCountries({ baseUrl: base, directory: url })).toEqual([
        { file: countryFiles.v4, url: `${base}${countryFiles.v4}`, ranges: 2 },
        { file: countryFiles.v6, url: `${base}${countryFiles.v6}`, ranges: 1 },
      ]);
      const updated = new CountryDatabase(url);
      expect(updated.country('8.8.8.8')).toBe('DE');
      expect(updated.country('1.0.0.7')).toBe('FR');
      expect(updated.country('2001:200::1')).toBe('JP');
      bodies.set(countryFiles.v4, '<html>rate limited</html>');
      bodies.delete(countryFiles.v6);
      const failed = await updateCountries({ baseUrl: base, directory: url });
      expect(failed[0].error).toContain('not a range file');
      expect(failed[1].error).toContain('404');
      expect(new CountryDatabase(url).country('8.8.8.8')).toBe('DE');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
