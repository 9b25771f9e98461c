/** A parse thread of the events API (see parse-pool.ts): parses and checks bodies, answers with columns. */
import { parentPort } from 'node:worker_threads';
import { packedBuffers } from '../importers/packed-batch.ts';
import { parseEventsBody } from './events-body.ts';

export interface ParseRequest {
  id: number;
  text: string;
  ndjson: boolean;
  now: number;
}

parentPort!.on('message', ({ id, text, ndjson, now }: ParseRequest) => {
  const parsed = parseEventsBody(text, ndjson, now);
  parentPort!.postMessage({ id, parsed }, parsed.failure === undefined && parsed.prepared ? packedBuffers(parsed.prepared.views) : []);
});
