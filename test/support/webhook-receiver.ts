import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as sent: what a signature is verified against. */
  body: string;
  at: number;
}

/** How the receiver answers one request: a status, after an optional delay (to make an attempt time out). */
export type Answer = (request: ReceivedWebhook) => { status: number; delayMs?: number; headers?: Record<string, string> };

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that records every webhook it gets and answers as `answer` says (200 by default). */
export async function startWebhookReceiver(answer: Answer = () => ({ status: 200 })): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = { path: incoming.url ?? '/', headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      for (const wake of waiters.splice(0)) wake();
      const { status, delayMs = 0, headers = {} } = answer(request);
      setTimeout(() => {
        if (!response.destroyed) response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`answered ${status}`);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhooks, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.slice(0, count);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
