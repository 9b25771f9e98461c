import pg from 'pg';

export interface ListenOptions {
  connectionString: string;
  channel: string;
  /** The notification's payload; empty after (re)connecting, when some may have been missed. */
  onNotify: (payload: string) => void;
  onError?: (error: Error) => void;
}

/**
 * Keeps one dedicated connection LISTENing on a channel, reconnecting with backoff when the
 * connection drops (a restarted database, say). A missed notification costs only latency: workers
 * also poll. Returns how to stop.
 */
export async function listenForNotifications(options: ListenOptions): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let delayMs = 100;

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const next = new pg.Client({ connectionString: options.connectionString });
    let failed = false;
    // A connection fails once, however many ways it reports it (an 'error' event, a rejected
    // connect or query): give it up and schedule exactly one replacement.
    const fail = (error: Error): void => {
      if (failed) return;
      failed = true;
      options.onError?.(error);
      if (client === next) client = null;
      next.end().catch(() => {});
      setTimeout(() => void connect().catch(() => {}), delayMs);
      delayMs = Math.min(delayMs * 2, 10_000);
    };
    next.on('notification', (message) => message.channel === options.channel && options.onNotify(message.payload ?? ''));
    next.on('error', fail);
    try {
      await next.connect();
      await next.query(`listen ${pg.escapeIdentifier(options.channel)}`);
      if (stopped || failed) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      delayMs = 100;
      // Work may have been enqueued while we were not listening.
      options.onNotify('');
    } catch (error) {
      fail(error as Error);
    }
  };

  await connect();
  return async () => {
    stopped = true;
    await client?.end().catch(() => {});
  };
}
