import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kyselyBundle } from '../../src/lib/bundled-kysely.ts';
import { startThread } from '../../src/lib/threads.ts';

const probe = new URL('../support/kysely-probe-thread.ts', import.meta.url);

describe('startThread', () => {
  it('starts the script with its workerData, and Kysely resolves to the bundle in that thread', async () => {
    const thread = startThread(probe, { workerData: { answer: 42 }, argv: ['--given'] });
    const [message] = (await once(thread, 'message')) as [{ kysely: string; workerData: unknown; argv: string[] }];
    await thread.terminate();
    expect(message.workerData).toEqual({ answer: 42 });
    expect(message.argv).toEqual(['--given', probe.href]);
    // npm install builds the bundle (postinstall); a thread started with `new Worker` resolves Kysely's own index.js.
    expect(message.kysely).toBe(pathToFileURL(kyselyBundle().path).href);
  });

  it('reports a script that fails to load as the thread error', async () => {
    const thread = startThread(new URL('../support/no-such-thread.ts', import.meta.url));
    const [error] = (await once(thread, 'error')) as [Error];
    expect(String(error)).toMatch(/no-such-thread/);
  });
});
