/**
 * Downloads newer copies of the IP-to-country files into `ip-country/` beside countries.ts, where
 * lookups prefer them over the package's. A file is replaced only when the download parses as ranges,
 * so a failed or garbled download keeps the copy in use.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { countryFiles, packageName, parseV4, parseV6, updatedCountryDirectory } from './countries.ts';

/** Where the files are published (ip-location-db's CDN copy of the npm package); `--base-url` replaces it. */
export const countryBaseUrl = 'https://cdn.jsdelivr.net/npm/@ip-location-db/geo-whois-asn-country@2/';

export interface CountryUpdate {
  file: string;
  url: string;
  ranges?: number;
  error?: string;
}

export async function updateCountries(options: { baseUrl?: string; directory?: URL; timeoutMs?: number } = {}): Promise<CountryUpdate[]> {
  const base = options.baseUrl ?? countryBaseUrl;
  const directory = options.directory ?? updatedCountryDirectory;
  await mkdir(directory, { recursive: true });
  return Promise.all(
    [
      { file: countryFiles.v4, parse: parseV4 },
      { file: countryFiles.v6, parse: parseV6 },
    ].map(async ({ file, parse }): Promise<CountryUpdate> => {
      const url = new URL(file, base.endsWith('/') ? base : `${base}/`).href;
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 60_000) });
        if (!response.ok) throw new Error(`the server answered ${response.status}`);
        const text = await response.text();
        let ranges: number;
        try {
          ranges = parse(text).codes.length;
        } catch (error) {
          throw new Error(`the download is not a range file: ${(error as Error).message}`, { cause: error });
        }
        await writeFile(new URL(file, directory), text);
        return { file, url, ranges };
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        const reason =
          (error as Error).name === 'TimeoutError'
            ? 'no answer in time; is this machine online?'
            : cause?.code
              ? `cannot reach the host (${cause.code})`
              : (error as Error).message;
        return { file, url, error: reason };
      }
    }),
  );
}

/** Which copy is in use and how old it is: the package's version names its build date (`2.3.YYYYMMDDHH`). */
export function countryDatabaseInfo(): { source: 'package' | 'updated'; version: string; date: string } {
  const updated = new URL(countryFiles.v4, updatedCountryDirectory);
  if (existsSync(updated)) return { source: 'updated', version: 'downloaded', date: statSync(updated).mtime.toISOString().slice(0, 10) };
  const packageJson = JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`${packageName}/package.json`), 'utf8')) as { version: string };
  const stamp = packageJson.version.split('.')[2] ?? '';
  return { source: 'package', version: packageJson.version, date: `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}` };
}
