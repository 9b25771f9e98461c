import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

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
