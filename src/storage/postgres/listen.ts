import pg from 'pg';

export interface ListenOptions {
  connectionString: string;
  channel: string;
  onNotify: () => void;
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
    next.on('notification', (message) => message.channel === options.channel && options.onNotify());
    next.on('error', (error) => {
      options.onError?.(error);
      next.end().catch(() => {});
      if (client === next) client = null;
      setTimeout(() => void connect().catch(() => {}), delayMs);
      delayMs = Math.min(delayMs * 2, 10_000);
    });
    try {
      await next.connect();
      await next.query(`listen ${pg.escapeIdentifier(options.channel)}`);
      client = next;
      delayMs = 100;
      // Work may have been enqueued while we were not listening.
      options.onNotify();
    } catch (error) {
      options.onError?.(error as Error);
      await next.end().catch(() => {});
      setTimeout(() => void connect().catch(() => {}), delayMs);
      delayMs = Math.min(delayMs * 2, 10_000);
    }
  };

  await connect();
  return async () => {
    stopped = true;
    await client?.end().catch(() => {});
  };
}
