/** Paths as they are counted, and whether a request asked for Markdown. */

// The Accept rule is shared with the docs site surface, which answers Markdown by the same test.
export { acceptsMarkdownFirst } from '../../lib/accept.ts';

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
