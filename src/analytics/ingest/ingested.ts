import type { AppContext } from '../../http/context.ts';

/** Where events came in: the events API, the browser tracker's beacon, or a host's log drain. */
export type IngestSource = 'api' | 'tracker' | 'drain';

declare module '../../http/context.ts' {
  interface QuireEvents {
    /**
     * A request's events were stored (`accepted`, committed) or refused (`rejected`: invalid events, or a
     * drain's records that were not stored); the metrics count them.
     */
    'events-ingested': [source: IngestSource, accepted: number, rejected: number];
  }
}

export function reportIngested(context: Pick<AppContext, 'events'>, source: IngestSource, accepted: number, rejected: number): void {
  if (accepted > 0 || rejected > 0) context.events.emit('events-ingested', source, accepted, rejected);
}
