import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const executablePath = '/usr/bin/chromium';

/** Debian's Chromium, headless, with everything that would reach the network turned off. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(`The dashboard browser tests need Chromium at ${executablePath}: run "apt-get install chromium" (CI installs it).`);
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Runs one step of a browser test; when it fails, the page as it was is saved to
 * test-results/<name>.png so the failure can be seen, not only read.
 */
export async function step<T>(page: Page, name: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: `test-results/dashboard-${name}.png`, fullPage: true }).catch(() => undefined);
    throw error;
  }
}
