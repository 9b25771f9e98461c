import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAssetExtensions } from '../../src/accounts/projects.ts';
import { assetRuleOf, isAsset, skipsAsset } from '../../src/analytics/capture/assets.ts';
import { normalizePath } from '../../src/analytics/ingest/paths.ts';
import { escapeUnsafePath } from '../../src/analytics/capture/safe-path.ts';
import { importLog } from '../../src/analytics/importers/run.ts';
import { page } from '../../src/analytics/query/query.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const combined = (ip: string, path: string, minute = 30) => `${ip} - - [21/Nov/2026:08:${minute}:00 +0000] "GET ${path} HTTP/1.1" 200 10 "-" "${chrome}"`;
const range = { measure: 'views' as const, from: Date.UTC(2026, 10, 21), to: Date.UTC(2026, 10, 22), limit: 50, offset: 0 };

describe('the asset rule', () => {
  it('tells static assets from pages by extension', () => {
    for (const path of ['/logo.png', '/app.JS?v=3', '/styles/site.css', '/fonts/inter.woff2', '/app.js.map', '/favicon.ico', '/img/x.svg#frag']) {
      expect(isAsset(path), path).toBe(true);
    }
    for (const path of ['/', '/guides/setup', '/guides/setup.md', '/guides/setup.mdx', '/llms.txt', '/llms-full.txt', '/index.html', '/v1.2/intro', '/a.b/c']) {
      expect(isAsset(path), path).toBe(false);
    }
  });

  it('prefers the response content type when the source gives one', () => {
    expect(isAsset('/guides/setup', 'image/png')).toBe(true);
    expect(isAsset('/bundle', 'text/javascript; charset=utf-8')).toBe(true);
    expect(isAsset('/api.js', 'text/html; charset=utf-8')).toBe(false);
    expect(isAsset('/guides/setup', 'text/markdown')).toBe(false);
    expect(isAsset('/data.json', 'application/json')).toBe(false);
  });
});

describe("a project's extension changes", () => {
  it('reads what an operator types: comma or space separated, a dot or capitals allowed, + when no sign, the last change of an extension winning', () => {
    expect(parseAssetExtensions('+pdf, -SVG .zip txt')).toEqual(['+pdf', '-svg', '+zip', '+txt']);
    expect(parseAssetExtensions('+svg,-svg')).toEqual(['-svg']);
    expect(parseAssetExtensions('default')).toEqual([]);
    expect(parseAssetExtensions('')).toEqual([]);
    for (const bad of ['+', '+toolongext', '-a/b', '+p.df', '++pdf']) expect(parseAssetExtensions(bad), bad).toHaveProperty('problem');
  });

  it('puts them before the content type and the built-in list: +ext is an asset, -ext a page', () => {
    const rule = assetRuleOf({ skip_assets: 1, asset_extensions: '+pdf -svg' });
    expect(rule).toEqual({ skipAssets: true, assets: ['pdf'], pages: ['svg'] });
    expect(skipsAsset(rule, '/guides/handbook.pdf')).toBe(true);
    expect(skipsAsset(rule, '/guides/handbook.pdf', 'text/html')).toBe(true);
    expect(skipsAsset(rule, '/diagrams/flow.svg')).toBe(false);
    expect(skipsAsset(rule, '/diagrams/flow.svg', 'image/svg+xml')).toBe(false);
    expect(skipsAsset(rule, '/app.js')).toBe(true);
    expect(skipsAsset(assetRuleOf({ skip_assets: 1, asset_extensions: '' }), '/guides/handbook.pdf')).toBe(false);
    expect(skipsAsset({ ...rule, skipAssets: false }, '/guides/handbook.pdf')).toBe(false);
  });
});

describe('paths kept escaped', () => {
  it('turns invalid percent-encoding and control characters into printable text, and leaves good paths alone', () => {
    expect(escapeUnsafePath('/guides/caf%C3%A9?x=1')).toBe('/guides/caf%C3%A9?x=1');
    const cases: [string, string][] = [
      ['/a%zz', '/a%zz'],
      ['/a%E2%8', '/a%E2%8'],
      ['/a%0Ab', '/a%0Ab'],
      ['/a\nb', '/a%0Ab'],
      ['/a%C3%28', '/a%C3%28'],
      ['/50%', '/50%'],
    ];
    for (const [raw, counted] of cases) expect(normalizePath(escapeUnsafePath(raw))?.path, raw).toBe(counted);
  });
});

describe.each(testDatabases)('capture rules in the importer on $dialect', (database) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => storage.close());

  const run = async (lines: string[], format: 'combined' | 'cloudfront', project?: { skipAssets?: boolean; assetExtensions?: string[] }) => {
    const tenant = await createTenant(storage, { project });
    const analytics = createAnalyticsState(storage);
    const summary = await importLog(analytics, tenant.project, format, Readable.from([Buffer.from(`${lines.join('\n')}\n`)]));
    return { summary, views: await page(analytics, tenant.project.id, range) };
  };

  it('does not count asset requests as views, and says how many it skipped', async () => {
    const lines = [
      combined('203.0.113.7', '/guides/setup'),
      combined('203.0.113.7', '/assets/app.js'),
      combined('203.0.113.7', '/assets/site.css'),
      combined('203.0.113.7', '/favicon.ico'),
      combined('203.0.113.7', '/llms.txt'),
    ];
    const { summary, views } = await run(lines, 'combined');
    expect(summary).toMatchObject({ accepted: 2, skipped: 3, reasons: { 'static asset (not a page view)': 3 } });
    expect(views.totals.total).toBe(2);
    const kept = await run(lines, 'combined', { skipAssets: false });
    expect(kept.summary).toMatchObject({ accepted: 5, skipped: 0 });
  });

  it("follows the project's extension changes", async () => {
    const lines = [combined('203.0.113.7', '/guides/handbook.pdf'), combined('203.0.113.7', '/diagrams/flow.svg'), combined('203.0.113.7', '/assets/app.js')];
    const { summary, views } = await run(lines, 'combined', { assetExtensions: ['+pdf', '-svg'] });
    expect(summary).toMatchObject({ accepted: 1, skipped: 2, reasons: { 'static asset (not a page view)': 2 } });
    expect(views.rows.map((row) => row.path)).toEqual(['/diagrams/flow.svg']);
  });

  it('keeps a view whose client IP is invalid, identified by what remains', async () => {
    const { summary, views } = await run([combined('not-an-ip', '/guides/setup'), combined('999.1.1.1', '/guides/setup', 31)], 'combined');
    expect(summary).toMatchObject({ accepted: 2, skipped: 0 });
    expect(summary.notes).toEqual({ 'client IP dropped (not an IPv4 or IPv6 address); visitor identified by user agent': 2 });
    expect(views.totals).toMatchObject({ total: 2 });
  });

  it('keeps a path with invalid percent-encoding or control characters, escaped', async () => {
    const { summary, views } = await run([combined('203.0.113.7', '/a%zz'), combined('203.0.113.7', '/b%0A%0D')], 'combined');
    expect(summary).toMatchObject({ accepted: 2, notes: { 'path kept escaped (invalid percent-encoding or control characters)': 2 } });
    expect(views.rows.map((row) => row.path).sort()).toEqual(['/a%zz', '/b%0A%0D']);
  });

  it('reads CloudFront lines with fewer columns than #Fields names when the needed ones are there', async () => {
    const fields =
      '#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type sc-content-type';
    const { summary } = await run(
      [
        '#Version: 1.0',
        fields,
        `2026-11-21\t08:30:00\tFRA56-C1\t5120\t203.0.113.7\tGET\td1.cloudfront.net\t/guides/setup\t200\t-\t${encodeURIComponent(chrome)}`,
        `2026-11-21\t08:31:00\tFRA56-C1\t5120\t203.0.113.8\tGET\td1.cloudfront.net\t/guides/page\t200\t-\t${encodeURIComponent(chrome)}\t-\t-\tHit\ttext/html`,
        `2026-11-21\t08:32:00\tFRA56-C1\t5120\t203.0.113.8\tGET\td1.cloudfront.net\t/hero\t200\t-\t${encodeURIComponent(chrome)}\t-\t-\tHit\timage/webp`,
        '2026-11-21\t08:33:00\tFRA56-C1',
      ],
      'cloudfront',
    );
    expect(summary).toMatchObject({
      accepted: 2,
      reasons: { 'header line': 2, 'static asset (not a page view)': 1, 'missing CloudFront fields: cs-uri-stem': 1 },
    });
  });
});
