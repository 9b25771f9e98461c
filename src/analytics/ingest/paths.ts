/** Paths as they are counted, and whether a request asked for Markdown. */

const markdownSuffix = /\.mdx?$/i;

export interface NormalizedPath {
  path: string;
  /** The path named a Markdown file (`.md`, `.mdx`) or an LLM index (`llms.txt`, `llms-full.txt`). */
  markdown: boolean;
}

/**
 * Drops query and fragment, decodes percent-encoding, collapses repeated and trailing slashes (the
 * root stays `/`) and removes a `.md`/`.mdx` suffix so `/guides/setup.md` counts for `/guides/setup`.
 * Returns null for something that is not a path.
 */
export function normalizePath(raw: string): NormalizedPath | null {
  let path = raw;
  const cut = path.search(/[?#]/);
  if (cut >= 0) path = path.slice(0, cut);
  if (/^https?:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      return null;
    }
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    return null;
  }
  if (!path.startsWith('/') || hasControlCharacter(path)) return null;
  path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1) path = path.replace(/\/+$/, '') || '/';
  const file = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const llmsIndex = file === 'llms.txt' || file === 'llms-full.txt';
  const markdownFile = markdownSuffix.test(path);
  if (markdownFile) path = path.replace(markdownSuffix, '') || '/';
  if (path.length > 1 && path.endsWith('/')) path = path.replace(/\/+$/, '') || '/';
  return { path, markdown: markdownFile || llmsIndex };
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

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
