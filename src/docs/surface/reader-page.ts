/**
 * A page of the docs as HTML, for a browser that follows a link Quire handed out (a citation, a search
 * result, the pages API's `url`) to the site surface on Quire when the project has no `siteUrl` of its
 * own: without it, such a link answered a 404. Behind `quire proxy` the site itself serves its pages,
 * so only Quire's own surface renders them.
 *
 * The Markdown is the repository's (anyone with write access to it wrote it), rendered with micromark's
 * safe defaults (raw HTML shown as text, no `javascript:` or `data:` addresses) under a Content-Security-
 * Policy that runs no script, loads nothing but the page's own styles and https images, and may not be framed.
 */
import { micromark } from 'micromark';
import { escapeHtml } from '../../lib/html-escape.ts';

export const readerPagePolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Root-relative addresses (`/guides/setup`, not `//host/…`) are the docs site's: they point under the surface's base. */
const rootRelative = /(href|src)="\/(?!\/)/g;

export function readerPageHtml(page: { title: string; markdown: string; route: string }, base: string): string {
  const body = micromark(page.markdown).replace(rootRelative, (_, attribute: string) => `${attribute}="${escapeHtml(base)}/`);
  const markdownUrl = `${base}${page.route === '/' ? '/index' : page.route.replace(/\/$/, '')}.md`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<link rel="alternate" type="text/markdown" href="${escapeHtml(markdownUrl)}">
<style>body{font:16px/1.6 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2328}pre{overflow-x:auto;background:#f6f8fa;padding:.75rem}code{font-size:.9em}img{max-width:100%}nav{font-size:.875rem;margin-bottom:1.5rem}</style>
</head>
<body>
<nav><a href="${escapeHtml(base)}/llms.txt">All pages (llms.txt)</a> · <a href="${escapeHtml(markdownUrl)}">This page as Markdown</a></nav>
<main>
${body}
</main>
</body>
</html>
`;
}
