import { readEventStream, type StreamEvent } from '../../src/lib/event-stream.ts';

export interface ParsedEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** Opens a job's event stream over HTTP; `events` yields parsed messages until the server ends it. */
export async function openEvents(url: string, headers: Record<string, string>, options: { lastEventId?: number; signal?: AbortSignal } = {}) {
  const response = await fetch(url, {
    headers: { ...headers, ...(options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) }) },
    signal: options.signal,
  });
  async function* events(): AsyncGenerator<ParsedEvent> {
    if (!response.body) return;
    for await (const message of readEventStream(response.body as AsyncIterable<Uint8Array>)) yield parse(message);
  }
  return { response, events: events() };
}

function parse(message: StreamEvent): ParsedEvent {
  return { id: Number(message.id), event: message.event, data: JSON.parse(message.data) as Record<string, unknown> };
}

/** Every event of a stream until the server closes it. */
export async function collectEvents(url: string, headers: Record<string, string>, options: { lastEventId?: number } = {}): Promise<ParsedEvent[]> {
  const { response, events } = await openEvents(url, headers, options);
  if (response.status !== 200) throw new Error(`stream answered ${response.status}: ${await response.text()}`);
  const all: ParsedEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}
