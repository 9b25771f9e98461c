import { normalizePath } from '../ingest/paths.ts';
import { isStorableText, unstorableMessage } from '../../lib/storable-text.ts';
import { interactionVisitor, type InteractionVisitor } from './visitor.ts';
import { feedbackLimits, feedbackSources, queryLength, sourceCode, type FeedbackSource } from './kinds.ts';

/** A checked feedback event, ready to store. */
export interface PreparedFeedback {
  kind: 'feedback';
  at: number;
  path: string;
  source: number;
  helpful: boolean | null;
  comment: string;
  contact: string | null;
  code: string | null;
  filename: string | null;
  lang: string | null;
  /** Who sent it, when the event said (visitor.ts). */
  visitor: InteractionVisitor | null;
}

/** A checked search event: a search, a click on an earlier search (`searchId` and `clickedPath`), or both at once. */
export interface PreparedSearch {
  kind: 'search';
  at: number;
  query: string;
  hits: number;
  searchId: string | null;
  clickedPath: string | null;
  /** Who searched, when the event said (visitor.ts). */
  visitor: InteractionVisitor | null;
}

export type PreparedInteraction = PreparedFeedback | PreparedSearch;

/** A view's visitor fields, which either kind may carry too. */
const visitorFieldNames = ['visitorId', 'userAgent', 'ip'];
const fields = {
  feedback: new Set(['kind', 'timestamp', 'path', 'source', 'helpful', 'comment', 'contact', 'code', 'filename', 'lang', ...visitorFieldNames]),
  search: new Set(['kind', 'timestamp', 'query', 'hits', 'searchId', 'clickedPath', ...visitorFieldNames]),
};
const maxFuture = 24 * 60 * 60 * 1000;
const earliest = Date.UTC(2000, 0, 1);

function text(event: Record<string, unknown>, name: keyof typeof feedbackLimits, max = feedbackLimits[name]): string | null {
  const value = event[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new Error(`${name} must be a string.`);
  if (value.length > max) throw new Error(`${name} is longer than ${max} characters; shorten it (a form field's maxlength="${max}" keeps readers within it).`);
  if (!isStorableText(value)) throw new Error(unstorableMessage(name));
  return value;
}

function timestamp(value: unknown, now: number): number {
  if (value === undefined || value === null) return now;
  const at = typeof value === 'number' ? value : typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(at)) throw new Error('timestamp must be an ISO 8601 date-time with offset (2026-11-21T09:30:00Z) or epoch milliseconds.');
  if (at < earliest || at > now + maxFuture)
    throw new Error('timestamp is before 2000 or more than a day in the future; check the clock and the unit (milliseconds).');
  return Math.floor(at);
}

function pagePath(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${name} is required: a page path such as /guides/setup.`);
  if (value.length > 2048) throw new Error(`${name} is longer than 2048 characters.`);
  if (!isStorableText(value)) throw new Error(unstorableMessage(name));
  const path = normalizePath(value);
  if (!path) throw new Error(`${name} "${value.slice(0, 100)}" is not a URL path; it must start with /.`);
  return path.path;
}

/** Case, width and spacing do not make another query: `  Install  GUIDE` is `install guide`. Cut at `queryLength`. */
export function normalizeQuery(query: string): string {
  const normalized = query.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return [...normalized].slice(0, queryLength).join('');
}

function prepareFeedback(event: Record<string, unknown>, now: number): PreparedFeedback {
  const source = event.source;
  if (typeof source !== 'string' || !feedbackSources.includes(source as FeedbackSource))
    throw new Error(`source must be one of ${feedbackSources.join(', ')}.`);
  const helpful = event.helpful ?? null;
  if (helpful !== null && typeof helpful !== 'boolean') throw new Error('helpful must be true (thumbs up) or false (thumbs down).');
  const comment = text(event, 'comment') ?? '';
  const code = text(event, 'code');
  if (source === 'thumbs_only' && helpful === null) throw new Error('A thumbs_only feedback needs helpful: true or false.');
  if (source === 'code_snippet' && code === null) throw new Error('A code_snippet feedback needs code: the snippet the reader commented on.');
  if (helpful === null && comment.trim() === '' && code === null) throw new Error('A feedback needs helpful, a comment or code; this one says nothing.');
  const contact = text(event, 'contact');
  return {
    kind: 'feedback',
    at: timestamp(event.timestamp, now),
    path: pagePath(event.path, 'path'),
    source: sourceCode(source as FeedbackSource),
    helpful,
    comment,
    contact: contact === null || contact.trim() === '' ? null : contact.trim(),
    code,
    filename: text(event, 'filename'),
    lang: text(event, 'lang'),
    visitor: interactionVisitor(event),
  };
}

function prepareSearch(event: Record<string, unknown>, now: number): PreparedSearch {
  if (typeof event.query !== 'string') throw new Error('query is required: the text the reader searched for.');
  if (event.query.length > feedbackLimits.rawQuery) throw new Error(`query is longer than ${feedbackLimits.rawQuery} characters.`);
  if (!isStorableText(event.query)) throw new Error(unstorableMessage('query'));
  const query = normalizeQuery(event.query);
  if (query === '') throw new Error('query is empty once spaces are trimmed; send searches with some text.');
  const hits = event.hits;
  if (!Number.isInteger(hits) || (hits as number) < 0 || (hits as number) > 1_000_000_000)
    throw new Error('hits must be the number of results the search showed (an integer from 0).');
  const searchId = text(event, 'searchId');
  if (searchId === '') throw new Error('searchId must not be empty; leave it out when clicks are not reported.');
  const clicked = event.clickedPath;
  return {
    kind: 'search',
    at: timestamp(event.timestamp, now),
    query,
    hits: hits as number,
    searchId,
    clickedPath: clicked === undefined || clicked === null ? null : pagePath(clicked, 'clickedPath'),
    visitor: interactionVisitor(event),
  };
}

/** Checks one event that has a `kind`; throws an Error whose message says what to fix. */
export function prepareInteraction(event: Record<string, unknown>, now: number): PreparedInteraction {
  const kind = event.kind;
  if (kind !== 'feedback' && kind !== 'search')
    throw new Error(`kind "${String(kind).slice(0, 40)}" is not known: use "feedback" or "search", or leave kind out for a page view.`);
  const unknown = Object.keys(event).find((name) => !fields[kind].has(name));
  if (unknown !== undefined) throw new Error(`"${unknown.slice(0, 40)}" is not a field of a ${kind} event; fields are ${[...fields[kind]].join(', ')}.`);
  return kind === 'feedback' ? prepareFeedback(event, now) : prepareSearch(event, now);
}
