import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

/** Flags that keep a headless Chromium off the network and quiet on a machine with no internet. */
export const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH when set, else the system's (Debian's
 * /usr/bin/chromium), else the build that the npm package @sparticuz/chromium ships (unpacked to
 * the temporary folder on first use), so `npm install` then `npm test` runs them on a machine with
 * only Node and npm. Never skipped: a missing browser fails the test with what to do.
 */
export async function chromiumExecutable(): Promise<string> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH is ${configured}, which does not exist; unset it to use the Chromium that npm installed.`);
    return configured;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const { default: packaged } = await import('@sparticuz/chromium');
  return packaged.executablePath();
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({ headless: true, ...options, executablePath: await chromiumExecutable(), args: [...chromiumArgs, ...(options.args ?? [])] });
}
