import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import type { JobRow } from '../../storage/tables/jobs.ts';

/** A stream whose socket holds more unsent bytes than this is closed; its client resumes with Last-Event-ID. */
const maxBufferedBytes = 4 * 1024 * 1024;

/** The sequence number after which a stream starts: -1 (the beginning) or a `Last-Event-ID`. */
export function resumeAfter(header: string | string[] | undefined): number {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || text.trim() === '') return -1;
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < 0) {
    throw invalidRequest('Last-Event-ID must be the id of an event of this stream (a whole number); omit it to start from the beginning.', [
      { path: '/headers/last-event-id', message: 'not an event id' },
    ]);
  }
  return value;
}

/**
 * Answers the request with the job's event stream (the API's and the dashboard's): takes the response
 * over from Fastify and hands it to the hub until the job ends or the client goes away. Check access and
 * `Last-Event-ID` before calling: after this, errors can no longer be answered.
 */
export function sendJobEvents(context: AppContext, reply: FastifyReply, job: JobRow, after: number): void {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    'x-content-type-options': 'nosniff',
  });
  response.write(`retry: 1000\n: events of job ${job.id}\n\n`);
  let open = true;
  const unsubscribe = context.jobEvents.subscribe(job.id, {
    cursor: after,
    status: job.status,
    write: (text) => {
      if (!open) return false;
      response.write(text);
      return response.writableLength <= maxBufferedBytes;
    },
    end: () => {
      open = false;
      response.end();
    },
  });
  response.on('close', () => {
    open = false;
    unsubscribe();
  });
}
