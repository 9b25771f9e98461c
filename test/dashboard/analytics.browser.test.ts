import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink, signInUrl } from '../../src/accounts/people/sessions.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testConfig, type Tenant } from '../support/app.ts';
import { launchChromium } from '../support/chromium.ts';
import { testDatabases } from '../support/storage.ts';
import { step } from './browser.ts';

const dayMs = 86_400_000;
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const gptBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
/** Addresses in the shipped IP-to-country database's published ranges. */
const us = '8.8.8.8';
const gb = '81.2.69.160';
/** Names long enough to wrap: a page must keep them inside the screen. */
const longPath = `/reference/${'configuration-settings-'.repeat(4)}and-their-defaults`;
// `npm run screenshots` sets this to keep a picture of the page at both widths under test-results/.
const screenshots = process.env.QUIRE_SCREENSHOTS === '1';
const widths = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];

describe('analytics page in Chromium', () => {
  let storage: Storage;
  let service: RunningService;
  let browser: Browser;
  let tenant: Tenant;
  const today = Math.floor(Date.now() / dayMs) * dayMs;
  const day = (offset: number) => new Date(today + offset * dayMs).toISOString().slice(0, 10);
  // A minute ago, or the first minute of today just after midnight: today's point always has views.
  const recent = () => new Date(Math.max(today, Date.now() - 60_000)).toISOString();

  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${service.url}${path}`, { ...init, headers: { ...tenant.auth, 'content-type': 'application/json', ...init.headers } });
    expect(response.status, path).toBeLessThan(300);
    return (await response.json()) as T;
  };
  const ingest = (events: object[]) => api(`/v1/analytics/${tenant.project.id}/events`, { method: 'POST', body: JSON.stringify({ events }) });
  const analyticsPath = () => `/dashboard/projects/${tenant.project.id}/analytics`;

  beforeAll(async () => {
    browser = await launchChromium();
    storage = await testDatabases[0].open();
    service = await startService({ config: testConfig(), api: true, worker: false, storage });
    tenant = await createTenant(storage, { project: { name: 'Handbook', trackerDomains: ['docs.acme.test'] } });
    await ingest([
      { timestamp: recent(), path: '/guides/setup', userAgent: chrome, visitorId: 'h1', ip: us },
      { timestamp: recent(), path: longPath, userAgent: chrome, visitorId: 'h2', ip: us, referrer: 'https://www.reddit.com/r/docs' },
      // No address: an address outside OpenAI's published ranges would make the claim spoofed, counted nowhere.
      { timestamp: recent(), path: '/guides/setup.md', userAgent: gptBot, visitorId: 'a1' },
      { timestamp: `${day(-1)}T10:00:00Z`, path: '/guides/setup', userAgent: firefox, visitorId: 'h3', ip: gb, referrer: 'https://news.ycombinator.com/' },
      { timestamp: `${day(-1)}T10:05:00Z`, path: longPath, userAgent: firefox, visitorId: 'h3', ip: gb },
      { timestamp: `${day(-3)}T08:00:00Z`, path: '/', userAgent: iphone, visitorId: 'h4', ip: gb },
      { timestamp: `${day(-5)}T08:00:00Z`, path: '/', userAgent: chrome, visitorId: 'h1', ip: us },
      // The previous period of "last 30 days": drawn dashed beside the current one.
      ...[-40, -38, -35].map((offset) => ({ timestamp: `${day(offset)}T12:00:00Z`, path: '/', userAgent: chrome, visitorId: `old${offset}`, ip: us })),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await storage?.close();
  });

  async function signedIn(width: number, height: number): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await page.goto(signInUrl(service.url!, (await createSignInLink(storage.db, tenant.orgId, 30)).token));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/keys$/);
    await page.close();
    return context;
  }

  /**
   * What a reader could not see: boxes past the screen's edges, hidden table cells, a scrolled chart,
   * colliding day labels. Run in the page as text, as the width test does (the tests compile without the DOM's types).
   */
  const layoutCheck = `(() => {
    const problems = [];
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth > width) problems.push('page is ' + document.documentElement.scrollWidth + ' px wide');
    const outside = (element) => {
      const box = element.getBoundingClientRect();
      return box.left < -0.5 || box.right > width + 0.5 || box.width === 0;
    };
    for (const box of document.querySelectorAll('.scroll, figure.chart'))
      if (box.scrollWidth > box.clientWidth + 1) problems.push((box.firstElementChild?.id || box.className) + ' scrolls sideways');
    const chart = document.querySelector('svg.plot');
    if (chart && outside(chart)) problems.push('the chart is outside the screen');
    for (const cell of document.querySelectorAll('main table.stacked td')) {
      if (cell.textContent.trim() === '') continue;
      if (outside(cell)) problems.push(cell.closest('table').id + ': "' + cell.textContent + '" is not within the screen');
    }
    const labels = [...document.querySelectorAll('svg.plot text.day')].filter((label) => getComputedStyle(label).display !== 'none');
    for (const label of labels) if (outside(label)) problems.push('day label ' + label.textContent + ' is outside the screen');
    const boxes = labels.map((label) => label.getBoundingClientRect()).sort((a, b) => a.left - b.left);
    for (let index = 1; index < boxes.length; index++) if (boxes[index].left < boxes[index - 1].right) problems.push('day labels overlap');
    return problems;
  })()`;
  const layoutProblems = async (page: Page) => (await page.evaluate(layoutCheck)) as string[];

  for (const { name, width, height } of widths) {
    it(`fits the chart and every table to ${width} px (${name}), today and the previous period included`, async () => {
      const context = await signedIn(width, height);
      const page = await context.newPage();
      await step(page, `analytics-${name}`, async () => {
        await page.goto(`${service.url}${analyticsPath()}?from=${day(-29)}&to=${day(0)}&compare=previous_period`);
        expect(await layoutProblems(page)).toEqual([]);
        // Today: its label ends the axis, its points are drawn with today's numbers.
        const lastLabel = page.locator('svg.plot text.day').last();
        expect(await lastLabel.getAttribute('data-day')).toBe(day(0));
        expect(await lastLabel.isVisible()).toBe(true);
        expect(await lastLabel.textContent()).toBe(day(0).slice(5));
        const series = await api<{ series: { date: string; human: number; ai: number }[]; previous: { series: { human: number }[] } }>(
          `/v1/analytics/${tenant.project.id}/series?dateFrom=${day(-29)}&dateTo=${day(1)}&compare=previous_period`,
        );
        const todayPoint = page.locator(`svg.plot circle.point.human[data-day="${day(0)}"]`);
        expect(await todayPoint.getAttribute('data-human')).toBe(String(series.series.at(-1)!.human));
        expect(await todayPoint.isVisible()).toBe(true);
        // The comparison: the previous period's lines, dashed, and said in the legend.
        expect(series.previous.series.reduce((sum, entry) => sum + entry.human, 0)).toBe(3);
        expect(await page.locator('svg.plot polyline.previous').count()).toBe(2);
        expect(await page.evaluate("getComputedStyle(document.querySelector('svg.plot polyline.previous')).strokeDasharray")).not.toBe('none');
        expect(await page.locator('#legend-previous').isVisible()).toBe(true);
        const visitors = await api<{ totals: { total: number }; previous: { totals: { total: number } } }>(
          `/v1/analytics/${tenant.project.id}/visitors?dateFrom=${day(-29)}&dateTo=${day(1)}&compare=previous_period`,
        );
        expect(await page.locator('#total-all').textContent()).toBe(String(visitors.totals.total));
        expect(await page.locator('#total-all-previous').textContent()).toBe(`previous period: ${visitors.previous.totals.total}`);
        // Every table shows every column of its rows: the long page's name wraps inside the screen.
        expect(await page.locator('#top-pages').getByText(longPath).isVisible()).toBe(true);
        for (const id of ['top-pages', 'by-country', 'by-source', 'by-entry-page', 'by-device', 'by-browser', 'by-os', 'top-agents', 'top-referrers']) {
          const cells = page.locator(`#${id} tbody td`);
          expect(await cells.count(), id).toBeGreaterThan(0);
          for (const cell of await cells.all()) if ((await cell.textContent())!.trim() !== '') expect(await cell.isVisible(), id).toBe(true);
        }
        // The 7-day range draws every day's points and still ends on today.
        await page.goto(`${service.url}${analyticsPath()}`);
        expect(await layoutProblems(page)).toEqual([]);
        expect(await page.locator('svg.plot text.day').last().getAttribute('data-day')).toBe(day(0));
        expect(await page.locator('svg.plot circle.point.human').count()).toBe(7);
        if (screenshots) {
          mkdirSync('test-results/screenshots', { recursive: true });
          await page.goto(`${service.url}${analyticsPath()}?from=${day(-89)}&to=${day(0)}&compare=previous_period`);
          await page.screenshot({ path: `test-results/screenshots/analytics-${name}.png`, fullPage: true });
          await page.locator('figure.chart').screenshot({ path: `test-results/screenshots/analytics-chart-${name}.png` });
        }
      });
      await context.close();
    });
  }

  it('filters every number on the page by a clicked country, keeps the filter on reload, and drops it from its chip', async () => {
    const context = await signedIn(1280, 900);
    const page = await context.newPage();
    const range = `dateFrom=${day(-6)}&dateTo=${day(1)}`;
    type Totals = { totals: { human: number; ai: number; total: number } };
    const shown = async () => [
      await page.locator('#total-human').textContent(),
      await page.locator('#total-ai').textContent(),
      await page.locator('#total-all').textContent(),
      await page.locator('#views-all').textContent(),
    ];
    const expected = async (filter: string) => {
      const visitors = await api<Totals>(`/v1/analytics/${tenant.project.id}/visitors?${range}${filter}`);
      const views = await api<Totals>(`/v1/analytics/${tenant.project.id}/views?${range}${filter}`);
      return [visitors.totals.human, visitors.totals.ai, visitors.totals.total, views.totals.total].map(String);
    };
    const rows = (id: string) =>
      page.locator(`#${id} tbody tr`).evaluateAll((list) => list.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
    await step(page, 'analytics-filter', async () => {
      await page.goto(`${service.url}${analyticsPath()}`);
      const unfiltered = await expected('');
      expect(await shown()).toEqual(unfiltered);
      await page.locator('#by-country').getByRole('link', { name: 'GB', exact: true }).click();
      await page.waitForURL(/filter=country%3D%3DGB/);
      const filtered = await expected('&filter=country==GB');
      expect(filtered).not.toEqual(unfiltered);
      expect(await shown()).toEqual(filtered);
      // The other tables are filtered too: the browsers are GB's only.
      const browsers = await api<{ results: { value: string; visitors: number; views: number }[] }>(
        `/v1/analytics/${tenant.project.id}/breakdown?${range}&property=browser&filter=country==GB`,
      );
      expect(await rows('by-browser')).toEqual(browsers.results.map((row) => [row.value, String(row.visitors), String(row.views)]));
      expect(await rows('by-browser')).not.toContainEqual(expect.arrayContaining(['Chrome']));
      const referrers = await api<{ referrers: { referrer: string; category: string; visitors: number; views: number }[] }>(
        `/v1/analytics/${tenant.project.id}/referrers?${range}&filter=country==GB`,
      );
      expect(referrers.referrers).toEqual([{ referrer: 'news.ycombinator.com', category: 'social', visitors: 1, views: 1 }]);
      expect(await rows('top-referrers')).toEqual(referrers.referrers.map((row) => [row.referrer, row.category, String(row.visitors), String(row.views)]));
      const chip = page.getByRole('region', { name: 'Active filters' });
      expect(await chip.getByRole('listitem').allTextContents()).toEqual(['Country is GB ×']);
      // A second filter from another table combines with the first.
      await page.locator('#by-browser').getByRole('link', { name: 'Firefox', exact: true }).click();
      await page.waitForURL(/filter=browser%3D%3DFirefox/);
      expect(await shown()).toEqual(await expected('&filter=country==GB&filter=browser==Firefox'));
      await page.reload();
      expect(await shown()).toEqual(await expected('&filter=country==GB&filter=browser==Firefox'));
      await page.getByRole('link', { name: 'Remove filter: Browser is Firefox' }).click();
      await page.waitForURL((url) => !url.search.includes('browser'));
      expect(await shown()).toEqual(filtered);
      // The range form keeps the filters it does not show.
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/filter=country%3D%3DGB/);
      expect(await shown()).toEqual(filtered);
      await page.getByRole('link', { name: 'Remove filter: Country is GB' }).click();
      await page.waitForURL((url) => !url.search.includes('filter'));
      expect(await shown()).toEqual(unfiltered);
      expect(await page.getByRole('region', { name: 'Active filters' }).count()).toBe(0);
      // Agents, referrers and pages filter as well.
      await page.locator('#top-agents').getByRole('link', { name: 'GPTBot' }).click();
      await page.waitForURL(/filter=agent%3D%3DGPTBot/);
      expect(await shown()).toEqual(await expected('&filter=agent==GPTBot'));
      await page.goto(`${service.url}${analyticsPath()}`);
      await page.locator('#top-referrers').getByRole('link', { name: 'reddit.com' }).click();
      expect(await shown()).toEqual(await expected('&filter=source==reddit.com'));
      await page.goto(`${service.url}${analyticsPath()}`);
      await page.locator('#top-pages').getByRole('link', { name: longPath }).click();
      expect(await shown()).toEqual(await expected(`&filter=path==${encodeURIComponent(longPath)}`));
    });
    // A malformed filter is a 400 that says what a filter looks like, not a page of wrong numbers.
    const bad = await page.goto(`${service.url}${analyticsPath()}?filter=colour==red`);
    expect(bad?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('property==value');
    await context.close();
  });

  it('raises the live count when a view arrives, without a reload', async () => {
    const context = await signedIn(1280, 900);
    const page = await context.newPage();
    await page.clock.install();
    await step(page, 'analytics-realtime', async () => {
      await page.goto(`${service.url}${analyticsPath()}`);
      const before = (await api<{ visitors: { total: number } }>(`/v1/analytics/${tenant.project.id}/realtime`)).visitors.total;
      expect(await page.locator('#realtime-total').textContent()).toBe(String(before));
      await ingest([{ timestamp: new Date().toISOString(), path: '/guides/live', userAgent: chrome, visitorId: 'live-1', ip: gb }]);
      await page.clock.runFor(11_000);
      await expect.poll(() => page.locator('#realtime-total').textContent(), { timeout: 5_000 }).toBe(String(before + 1));
      expect(await page.locator('#realtime-human').textContent()).toBe(
        String((await api<{ visitors: { human: number } }>(`/v1/analytics/${tenant.project.id}/realtime`)).visitors.human),
      );
    });
    await context.close();
  });

  it('creates a shared link that shows the page read-only without sign-in, with working filters, until it is revoked', async () => {
    const owner = await signedIn(390, 844);
    const page = await owner.newPage();
    const url = await step(page, 'share-create', async () => {
      await page.goto(`${service.url}${analyticsPath()}`);
      await page.getByRole('link', { name: 'Share this page with a read-only link' }).click();
      expect(await page.locator('#no-links').count()).toBe(1);
      await page.getByRole('button', { name: 'Create a shared link' }).click();
      const link = (await page.locator('#new-link code').textContent())!;
      expect(link).toMatch(new RegExp(`^${service.url}/share/[A-Za-z0-9_-]{32}$`));
      expect(await page.getByRole('button', { name: 'Copy the shared link' }).getAttribute('data-copy')).toBe(link);
      expect(await page.locator('#shared-links tbody tr').count()).toBe(1);
      expect(await layoutProblems(page)).toEqual([]);
      return link;
    });
    const stranger = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const shared = await stranger.newPage();
    await step(shared, 'share-open', async () => {
      const response = await shared.goto(url);
      expect(response?.status()).toBe(200);
      expect(await shared.getByRole('heading', { level: 1 }).textContent()).toBe('Analytics · Handbook');
      // The numbers only: no tabs, no export, no setup, no sharing, no navigation of a signed-in viewer.
      expect(await shared.locator('nav.tabs, #sharing-link, #gaps-link, a[download], header nav').count()).toBe(0);
      const visitors = await api<{ totals: { total: number } }>(`/v1/analytics/${tenant.project.id}/visitors?dateFrom=${day(-6)}&dateTo=${day(1)}`);
      expect(await shared.locator('#total-all').textContent()).toBe(String(visitors.totals.total));
      expect(await layoutProblems(shared)).toEqual([]);
      // Filters and the comparison work read-only and stay on the shared link.
      await shared.locator('#by-country').getByRole('link', { name: 'US', exact: true }).click();
      await shared.waitForURL(/\/share\/[^/?]+\?.*filter=country%3D%3DUS/);
      const filtered = await api<{ totals: { total: number } }>(
        `/v1/analytics/${tenant.project.id}/visitors?dateFrom=${day(-6)}&dateTo=${day(1)}&filter=country==US`,
      );
      expect(await shared.locator('#total-all').textContent()).toBe(String(filtered.totals.total));
      await shared.getByLabel('Compare with the previous period').check();
      await shared.getByRole('button', { name: 'Show' }).click();
      await shared.waitForURL(/compare=previous_period/);
      expect(await shared.locator('#legend-previous').isVisible()).toBe(true);
      expect((await shared.request.get(`${url}/realtime`)).status()).toBe(200);
      // Nothing else: the dashboard still asks the stranger to sign in.
      await shared.goto(`${service.url}${analyticsPath()}`);
      expect(shared.url()).toContain('/dashboard/sign-in');
    });
    await step(page, 'share-revoke', async () => {
      await page.getByRole('button', { name: /^Revoke shl_/ }).click();
      expect(await page.getByRole('status').first().textContent()).toContain('revoked');
      expect(await page.locator('#no-links').count()).toBe(1);
    });
    await step(shared, 'share-gone', async () => {
      const response = await shared.goto(url);
      expect(response?.status()).toBe(404);
      expect(await shared.getByRole('alert').textContent()).toContain('does not exist or was revoked');
      expect((await shared.request.get(`${url}/realtime`)).status()).toBe(404);
    });
    await stranger.close();
    await owner.close();
  });
});
