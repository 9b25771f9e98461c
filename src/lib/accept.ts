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

/** True when an Accept header ranks `text/markdown` above `text/html`. */
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
 * The coding to answer with for an Accept-Encoding header, among those kept (the first of `available`
 * the client accepts, its q-values ranking them first), or null for the file as it is. A coding the
 * header names with `q=0`, or leaves to a `*;q=0`, is never chosen.
 */
export function preferredCoding(acceptEncoding: string | undefined, available: readonly ContentCoding[]): ContentCoding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    const weight = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    const value = weight === undefined ? 1 : Number(weight.slice(2));
    if (coding.trim()) q.set(coding.trim(), Number.isFinite(value) ? value : 0);
  }
  let best: ContentCoding | null = null;
  let bestQ = 0;
  for (const coding of available) {
    const weight = q.get(coding) ?? q.get('*') ?? 0;
    if (weight > bestQ) {
      best = coding;
      bestQ = weight;
    }
  }
  return best;
}
