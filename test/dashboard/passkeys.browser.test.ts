import { createServer, type AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvitation, invitationUrl } from '../../src/accounts/people/invitations.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testConfig } from '../support/app.ts';
import { launchChromium } from '../support/chromium.ts';
import { testDatabases } from '../support/storage.ts';
import { step } from './browser.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Gives the page's browser a virtual passkey authenticator (Chromium's WebAuthn domain) that says yes at once. */
async function virtualAuthenticator(page: Page): Promise<void> {
  const session = await page.context().newCDPSession(page);
  await session.send('WebAuthn.enable');
  await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

describe.each(testDatabases)('passkeys in Chromium on $dialect', (database) => {
  let storage: Storage;
  let service: RunningService;
  let browser: Browser;
  let base: string;
  let orgId: string;

  beforeAll(async () => {
    storage = await database.open();
    const port = await freePort();
    // http://localhost is a secure context, so WebAuthn works without https; the public URL names the relying party.
    base = `http://localhost:${port}`;
    service = await startService({ config: testConfig({ port, host: '127.0.0.1', publicUrl: base }), api: true, worker: false, storage });
    orgId = (await createTenant(storage)).orgId;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await storage?.close();
  });

  it('joins by invitation, adds a passkey, signs out, and signs in again with the passkey alone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await virtualAuthenticator(page);
    const { token } = await createInvitation(storage.db, orgId, { role: 'member', note: 'Pat', hours: 1 });

    await step(page, 'join', async () => {
      await page.goto(invitationUrl(base, token));
      await page.getByLabel('Your name').fill('Pat Passkey');
      await page.getByLabel('Email address').fill('pat@acme.test');
      await page.getByRole('button', { name: 'Join' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
    });

    await step(page, 'add-passkey', async () => {
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await expect.poll(() => page.locator('#passkeys + .scroll tbody tr').count()).toBe(1);
      expect(await storage.db.selectFrom('person_passkeys').select('id').execute()).toHaveLength(1);
    });

    await step(page, 'sign-out', async () => {
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Signed out');
      await page.goto(`${base}/dashboard/keys`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    });

    await step(page, 'passkey-sign-in', async () => {
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('API keys');
      // A member: no People or Connections in the navigation, and the keys are the owners' business.
      expect(await page.getByRole('link', { name: 'People' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Generate key' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Pat Passkey' }).count()).toBe(1);
    });
    await context.close();
  });

  it('refuses a passkey the server does not know', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await virtualAuthenticator(page);
    const { token } = await createInvitation(storage.db, orgId, { role: 'owner', note: 'Quinn', hours: 1 });
    await page.goto(invitationUrl(base, token));
    await page.getByLabel('Your name').fill('Quinn');
    await page.getByLabel('Email address').fill('quinn@acme.test');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => page.locator('#passkeys + .scroll tbody tr').count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    // The browser keeps its passkey; the server forgets it (as when an owner removes the person and invites them again).
    await storage.db.deleteFrom('person_passkeys').execute();
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(() => page.locator('[data-passkey-error]').textContent()).toContain('not known here');
    await page.goto(`${base}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await context.close();
  });
});
