/**
 * The feedback benchmark's dataset, generated deterministically: feedback items and searches in time
 * order over 30 days, half of each. Pages and queries have Zipf-like popularity (2,000 pages; 20,000
 * distinct queries, a long tail as on a large docs site); about one search in four is clicked and one
 * in eight finds nothing.
 */
import { random, zipf } from './random.ts';

export interface FeedbackShape {
  events: number;
  days: number;
  paths: number;
  queries: number;
}

/** 1,000,000 events unless QUIRE_BENCH_SCALE shrinks them (and the pages and queries with them). */
export function feedbackShape(scale: number): FeedbackShape {
  return {
    events: Math.round(1_000_000 * scale),
    days: 30,
    paths: Math.max(50, Math.round(2000 * Math.sqrt(scale))),
    queries: Math.max(200, Math.round(20_000 * Math.sqrt(scale))),
  };
}

export const feedbackStart = Date.UTC(2026, 0, 1);
const sources = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;

export type BenchEvent =
  | { kind: 'feedback'; at: number; path: string; source: (typeof sources)[number]; helpful: boolean | null; comment: string; code: string | null }
  | { kind: 'search'; at: number; query: string; hits: number; clickedPath: string | null };

export function* generateInteractions(shape: FeedbackShape, seed = 20261122): Generator<BenchEvent> {
  const next = random(seed);
  const page = zipf(shape.paths, next);
  const query = zipf(shape.queries, next);
  const perDay = shape.events / shape.days;
  for (let index = 0; index < shape.events; index++) {
    const at = feedbackStart + Math.floor(index / perDay) * 86_400_000 + Math.floor(next() * 86_400_000);
    if (index % 2 === 0) {
      const source = sources[Math.floor(next() * 4)];
      const roll = next();
      yield {
        kind: 'feedback',
        at,
        path: `/docs/page-${page()}`,
        source,
        helpful: source === 'thumbs_only' || roll < 0.5 ? roll < 0.6 : null,
        comment: source === 'thumbs_only' ? '' : `Feedback ${index}: this step did not work for me.`,
        code: source === 'code_snippet' ? 'npm install quire' : null,
      };
    } else {
      const rank = query();
      const hits = rank % 8 === 7 ? 0 : 1 + (rank % 20);
      yield { kind: 'search', at, query: `query ${rank}`, hits, clickedPath: hits > 0 && next() < 0.25 ? `/docs/page-${page()}` : null };
    }
  }
}

/** The event the ingestion API takes. */
export function interactionEvent(event: BenchEvent): Record<string, unknown> {
  if (event.kind === 'search')
    return { kind: 'search', timestamp: event.at, query: event.query, hits: event.hits, clickedPath: event.clickedPath ?? undefined };
  return {
    kind: 'feedback',
    timestamp: event.at,
    path: event.path,
    source: event.source,
    helpful: event.helpful ?? undefined,
    comment: event.comment || undefined,
    code: event.code ?? undefined,
  };
}
