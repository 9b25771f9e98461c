import type { Logger } from 'pino';
import type { Storage } from '../../storage/dialect.ts';
import { recordedRows } from '../transcript.ts';

/** The PostgreSQL channel whose notifications name a job with new rows in its event sequence. */
export const jobEventsChannel = 'quire_job_events';

/**
 * Tells other processes' event streams (hub.ts) of rows this process recorded: each `recordedRows`
 * announcement (made after its commit) becomes a NOTIFY on `jobEventsChannel` with the job id, those
 * of one event-loop turn sent in one statement. On SQLite it sends nothing (storage.notify does
 * nothing there), and everywhere the streams' poll still finds what a lost notification missed.
 * Returns how to stop.
 */
export function relayRecordedRows(storage: Storage, logger: Logger): () => void {
  let pending = new Set<string>();
  const flush = () => {
    const jobIds = [...pending];
    pending = new Set();
    storage.notify(storage.db, jobEventsChannel, jobIds).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not notify other processes of job events; their streams find them at their next poll');
    });
  };
  const onRecorded = (jobId: string) => {
    if (pending.size === 0) setImmediate(flush);
    pending.add(jobId);
  };
  recordedRows.on('recorded', onRecorded);
  return () => recordedRows.off('recorded', onRecorded);
}
