/**
 * The proxy's database writer, in a worker thread of its own (see recorder.ts): it opens the database
 * the environment names, and stores each batch of recorded requests through the ingestion pipeline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../../config/config.ts';
import { openStorage } from '../../storage/open.ts';
import { findProject } from '../../accounts/projects.ts';
import { assetRuleOf } from '../capture/assets.ts';
import type { IncomingEvent } from '../ingest/validate.ts';
import { storeKeyedEvents } from '../capture/keyed-events.ts';
import { countReason, requestEvent, type ReasonCounts } from '../capture/request-event.ts';
import { createAnalyticsState, directoryOptions } from '../state.ts';
import { batchRequests, type BatchMessage } from './recorded-batch.ts';
import { releaseWhenIdle } from '../../lib/release-memory.ts';

export interface StoreWorkerData {
  projectId: string;
  /** Environment the database settings are read from (the process's, plus overrides). */
  env: Record<string, string | undefined>;
}

export type StoreReply = { id: number; stored: number; duplicates: number; reasons: ReasonCounts; notes: ReasonCounts } | { id: number; error: string };

const { projectId, env } = workerData as StoreWorkerData;
const config = loadConfig(env);
const storage = await openStorage(config, { migrate: false });
const project = await findProject(storage.db, projectId);
if (!project) throw new Error(`No project has the id ${projectId}.`);
const analytics = createAnalyticsState(storage, directoryOptions(config));
const rule = assetRuleOf(project);

const store = async ({ id, batch }: { id: number; batch: BatchMessage }): Promise<void> => {
  const reasons: ReasonCounts = {};
  const notes: ReasonCounts = {};
  const skip = (reason: string) => countReason(reasons, reason);
  const note = (reason: string) => countReason(notes, reason);
  const inputs: IncomingEvent[] = [];
  const keys: string[] = [];
  try {
    for (const { request, key } of batchRequests(batch)) {
      const event = requestEvent(request, rule, note);
      if ('skip' in event) skip(event.skip);
      else {
        inputs.push(event);
        keys.push(key);
      }
    }
    const { stored, duplicates } = await storeKeyedEvents(analytics, project, inputs, keys, skip);
    parentPort!.postMessage({ id, stored, duplicates, reasons, notes } satisfies StoreReply);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies StoreReply);
  }
};

// Traffic comes in bursts: once the thread has stored nothing for a few seconds, the memory its heap freed goes back to
// the system (lib/release-memory.ts).
const during = releaseWhenIdle();
parentPort!.on('message', (message: { id: number; batch: BatchMessage }) => during(() => store(message)));
parentPort!.postMessage({ ready: true });
