import Negotiator from 'negotiator';

/**
 * Content negotiation between Markdown and HTML, one rule for every part of Quire: the docs site
 * surface answers Markdown exactly when the analytics counts the request as asking for it.
 */

/** Quality of `type` in an Accept header: the most specific matching range wins (RFC 9110). */
function quality(ranges: { type: string; q: number }[], type: string): number {
  const [major] = type.split('/');
  let best = -1;
  let bestSpecificity = -1;
  for (const range of ranges) {
    const specificity = range.type === type ? 2 : range.type === `${major}/*` ? 1 : range.type === '*/*' ? 0 : -1;
    if (specificity > bestSpecificity) {
      bestSpecificity = specificity;
      best = range.q;
    }
  }
  return Math.max(best, 0);
}

/**
 * True when an Accept header ranks `text/markdown` above `text/html`. Written here rather than with
 * `negotiator`: the contract's rule is strictly above (equal q-values answer HTML), where negotiator
 * breaks ties by the order the client listed the types in.
 */
export function acceptsMarkdownFirst(accept: string | undefined): boolean {
  if (!accept || !/markdown/i.test(accept)) return false;
  const ranges = accept.split(',').map((part) => {
    const [type, ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    return { type: type.trim(), q: Number.isFinite(value) ? value : 0 };
  });
  return quality(ranges, 'text/markdown') > quality(ranges, 'text/html');
}

/** The content codings a surface keeps its larger files in, in the order it prefers them. */
export type ContentCoding = 'br' | 'gzip';

/**
 * The coding to answer with for an Accept-Encoding header, among those kept, or null for the file as it
 * is: the client's q-values first (a coding it names with `q=0`, or leaves to a `*;q=0`, is never
 * chosen, and `identity` ranked above every kept coding means the file as it is), then the order of
 * `available` (`negotiator`'s `preferred`, rather than the order the client happened to list them in).
 */
export function preferredCoding(acceptEncoding: string | undefined, available: readonly ContentCoding[]): ContentCoding | null {
  if (!acceptEncoding) return null;
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } });
  // negotiator 1.x takes the server's order for ties; the published types describe 0.6, without it.
  const encodings = negotiator.encodings as (available: readonly string[], options: { preferred: readonly string[] }) => string[];
  const [best] = encodings.call(negotiator, [...available, 'identity'], { preferred: available });
  return best === undefined || best === 'identity' ? null : (best as ContentCoding);
}

/** Whether an If-None-Match header names `etag` (or `*`); a weak form of it matches too (RFC 9110's weak comparison). */
export function matchesEtag(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
