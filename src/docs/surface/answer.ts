import { acceptsMarkdownFirst, matchesEtag, preferredCoding } from '../../lib/accept.ts';
import type { Storage } from '../../storage/dialect.ts';
import { trimTrailingSlashes } from '../../lib/trim.ts';
import { getPage } from '../index/pages.ts';
import { readerPageHtml, readerPagePolicy } from './reader-page.ts';
import { llmsCodings, viewPath, type LlmsFile, type LlmsTextCache, type SiteInfo } from './site-files.ts';

/** Where the surface is served and how: Quire's `/sites/{projectId}` or a site's root behind `quire proxy`. */
export interface SurfacePlace {
  storage: Storage;
  llmsText: LlmsTextCache;
  site: SiteInfo;
  /** The surface's own address without a trailing slash: llms.txt and the MCP server are under it. */
  base: string;
  /** Whether anonymous requests may use the MCP server (the project's `docsPublic`). */
  anonymous: boolean;
  /** Whether a page's route asked for as HTML is answered with the page rendered (reader-page.ts): on Quire, not behind the proxy. */
  readerPages?: boolean;
}

/** A request to the surface: its path relative to the base, decoded, and its Accept header (and those of revalidation and compression). */
export interface SurfaceRequest {
  path: string;
  accept: string | undefined;
  acceptEncoding?: string | undefined;
  ifNoneMatch?: string | undefined;
}

export interface SurfaceAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  /** The path the analytics counts a view of (`/guides/setup.md` counts for `/guides/setup`). */
  viewPath: string;
}

/** MCP's protocol revision the server speaks, named in the discovery document. */
const mcpProtocolVersion = '2025-06-18';
// eslint-disable-next-line no-control-regex -- finding control characters (NUL above all, which PostgreSQL refuses in text) is the point
const controlCharacter = /[\u0000-\u001f\u007f]/;

const text = (body: string, type: string, viewPath: string): SurfaceAnswer => ({
  status: 200,
  headers: { 'content-type': `${type}; charset=utf-8` },
  body,
  viewPath,
});

/**
 * llms.txt from the bytes kept for the current generation: compressed when the client takes a
 * coding whose copy is made (each coding with its own strong ETag), and 304 without a body when the
 * client already holds that copy. Counted as a view either way.
 */
function llmsAnswer(file: LlmsFile, request: SurfaceRequest, path: '/llms.txt' | '/llms-full.txt'): SurfaceAnswer {
  const coding = preferredCoding(request.acceptEncoding, llmsCodings);
  const coded = coding ? file.coded(coding) : null;
  const etag = coded ? `${file.etag.slice(0, -1)}-${coding}"` : file.etag;
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8', etag, vary: 'accept-encoding' };
  if (matchesEtag(request.ifNoneMatch, etag)) return { status: 304, headers, body: '', viewPath: path };
  if (coded) headers['content-encoding'] = coding!;
  return { status: 200, headers, body: coded ?? file.body, viewPath: path };
}

/**
 * Routes a `.md` path may stand for: `/index.md` is the root page; `/cli/index.md` is `/cli/index`, else
 * the folder's index `/cli`. Each route also in its folder form (`/cli/`), as MkDocs' directory URLs
 * (its default) have it: `markdownPath` drops that slash, so `llms.txt` links `/cli/` as `/cli.md`.
 */
function markdownRoutes(path: string): string[] {
  const stem = path.slice(0, -'.md'.length);
  if (stem === '/index') return ['/'];
  return withFolderForms(stem.endsWith('/index') ? [stem, stem.slice(0, -'/index'.length)] : [stem]);
}

const withFolderForms = (routes: string[]) => routes.flatMap((route) => (route === '/' ? [route] : [route, `${route}/`]));

/** The first of `routes` that is a page, as Markdown or (`reader`) rendered as HTML. */
async function pageAnswer(place: SurfacePlace, routes: string[], reader = false): Promise<SurfaceAnswer | null> {
  for (const route of routes) {
    const page = await getPage(place.storage, place.site.projectId, route);
    if (!page) continue;
    const headers: Record<string, string> = {
      'content-type': reader ? 'text/html; charset=utf-8' : 'text/markdown; charset=utf-8',
      vary: 'accept',
      link: `<${place.base}/llms.txt>; rel="llms-txt"`,
    };
    if (reader) headers['content-security-policy'] = readerPagePolicy;
    return { status: 200, headers, body: reader ? readerPageHtml(page, place.base) : page.markdown, viewPath: viewPath(page.route) };
  }
  return null;
}

function mcpDiscovery(place: SurfacePlace, path: string): SurfaceAnswer {
  const url = `${place.base}/mcp`;
  const server = { name: place.anonymous ? 'public' : 'authenticated', url, transport: 'http', authentication: place.anonymous ? 'none' : 'bearer' };
  return text(JSON.stringify({ version: mcpProtocolVersion, transport: 'http', url, servers: [server] }), 'application/json', path);
}

/**
 * The site surface's answer to a path, or null when the path is none of its files and no page's
 * Markdown was asked for, nor (on Quire) a page's route (Quire answers 404 then; the proxy forwards the request). Paths are only
 * looked up in the index, never on a file system, so `..` and the like find nothing.
 */
export async function answerSurface(place: SurfacePlace, request: SurfaceRequest): Promise<SurfaceAnswer | null> {
  const { path } = request;
  if (!path.startsWith('/') || controlCharacter.test(path) || path.length > 2048) return null;
  switch (path) {
    case '/llms.txt':
    case '/.well-known/llms.txt':
      return llmsAnswer(await place.llmsText.get(place.storage, place.site), request, '/llms.txt');
    case '/llms-full.txt':
      return llmsAnswer(await place.llmsText.get(place.storage, place.site, 'full'), request, '/llms-full.txt');
    case '/.well-known/mcp':
    case '/.well-known/mcp.json':
      return mcpDiscovery(place, path);
  }
  if (path.endsWith('.md')) return pageAnswer(place, markdownRoutes(path));
  const routes = path === '/' ? [path] : withFolderForms([trimTrailingSlashes(path)]);
  if (acceptsMarkdownFirst(request.accept)) return pageAnswer(place, routes);
  return place.readerPages ? pageAnswer(place, routes, true) : null;
}
