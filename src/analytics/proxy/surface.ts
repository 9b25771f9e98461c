/**
 * The site surface at the docs site's own root (llms.txt, each page's Markdown, the MCP discovery
 * document and the search MCP server), as the proxy takes it. The proxy only routes and records:
 * what the surface answers is composed outside analytics (server/proxy.ts builds it on the docs index).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { acceptsMarkdownFirst } from '../../lib/accept.ts';

/** A file the surface answers: its status, headers and body, and the path the view is counted under. */
export interface SurfaceFile {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  /** `/guides/setup.md` counts for the page `/guides/setup` as a Markdown read. */
  viewPath: string;
}

/** The client an MCP request named in `initialize`. */
export interface SurfaceClient {
  name: string;
  version: string;
}

/** One request to the search MCP server, its JSON body read; `ip` is the client's address as the proxy resolves it. */
export interface SurfaceMcpRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  ip: string;
  /** Counts a page whose content a tool returned as one view (`viewPath` as a SurfaceFile's). */
  pageRead(viewPath: string, client: SurfaceClient | undefined): void;
}

export interface SurfaceMcpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The surface as the project's settings stand at one moment. */
export interface ServedSurface {
  /** The `link` header HTML pages gain: `<{siteUrl}/llms.txt>; rel="llms-txt"`. */
  link: string;
  /** The surface's answer to a path (decoded, without the query), or null when it has none. */
  answer(request: { path: string; accept: string | undefined; acceptEncoding?: string; ifNoneMatch?: string }): Promise<SurfaceFile | null>;
  mcp(request: SurfaceMcpRequest): Promise<SurfaceMcpAnswer>;
}

export interface ProxySurface {
  /** The surface now, or null while the project's docs are not public (then the proxy only forwards). Cached briefly by its maker. */
  current(): Promise<ServedSurface | null>;
}

/** Largest MCP request body read, in bytes (the MCP route's limit on Quire). */
export const mcpBodyLimit = 1024 * 1024;

/** Paths whose file the surface has, whatever the Accept header says. */
const surfaceFiles = new Set(['/llms.txt', '/llms-full.txt', '/.well-known/llms.txt', '/.well-known/mcp', '/.well-known/mcp.json']);

/**
 * What a request is to the surface: `mcp` (answered by Quire), `file` (the upstream first; its 2xx
 * wins), `negotiated` (a page asked for as Markdown: the upstream first; only a Markdown 2xx wins,
 * since a site answering its HTML would otherwise hide every page's Markdown), or `page` (forwarded).
 */
export function surfaceKind(method: string | undefined, path: string, accept: string | undefined): 'mcp' | 'file' | 'negotiated' | 'page' {
  if (path === '/mcp') return 'mcp';
  if (method !== 'GET' && method !== 'HEAD') return 'page';
  if (surfaceFiles.has(path) || path.endsWith('.md')) return 'file';
  return acceptsMarkdownFirst(accept) ? 'negotiated' : 'page';
}

/** The request's path without its query, percent-decoded; null when it does not decode. */
export function decodedPath(url: string): string | null {
  const end = url.search(/[?#]/);
  try {
    return decodeURIComponent(end === -1 ? url : url.slice(0, end));
  } catch {
    return null;
  }
}

/** Whether an upstream answer wins over the surface's for a request of this kind. */
export function upstreamWins(kind: 'file' | 'negotiated', status: number, contentType: string | undefined): boolean {
  if (status < 200 || status > 299) return false;
  return kind === 'file' || /^text\/(x-)?markdown\b/i.test(contentType ?? '');
}

/** The upstream's headers with the llms.txt link added when the answer is a page of HTML. */
export function withLlmsLink(headers: IncomingHttpHeaders, status: number, link: string): IncomingHttpHeaders {
  const type = headers['content-type'];
  if (status < 200 || status > 299 || typeof type !== 'string' || !/^text\/html\b/i.test(type)) return headers;
  const existing = headers['link'];
  const links = existing === undefined ? [link] : [...(Array.isArray(existing) ? existing : [existing]), link];
  return { ...headers, link: links.join(', ') };
}
