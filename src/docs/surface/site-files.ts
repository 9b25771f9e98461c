import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip as gzipCallback } from 'node:zlib';
import { readDocsState } from '../index/state.ts';
import { currentGeneration, visibleAt } from '../index/visible.ts';
import type { ContentCoding } from '../../lib/accept.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { Storage } from '../../storage/dialect.ts';

const brotli = promisify(brotliCompress);
const gzip = promisify(gzipCallback);

/** What llms.txt and llms-full.txt say of the site: its name and description, and where its pages are. */
export interface SiteInfo {
  projectId: string;
  name: string;
  description: string;
  /** The docs site's address without a trailing slash (`https://docs.acme.com`). */
  siteUrl: string;
}

/** The Markdown file of a route: `/guides/setup` → `/guides/setup.md`; the root page is `/index.md`. */
export const markdownPath = (route: string) => (route === '/' ? '/index.md' : `${route.replace(/\/+$/, '')}.md`);

/**
 * The path a Markdown read of a page is counted under: the analytics drops the `.md` of a Markdown
 * fetch, so this counts for the route itself (the root page's `/.md` for `/`, where `/index.md`
 * would count for `/index`) and marks the view as a Markdown fetch.
 */
export const viewPath = (route: string) => `${route.replace(/\/+$/, '') || '/'}.md`;

/** A page's public address, at a section when `anchor` is given: the site's URL, the route and `#anchor`. */
export const pageUrl = (siteUrl: string, route: string, anchor = '') => `${siteUrl}${route}${anchor ? `#${anchor}` : ''}`;

/** The site's pages for its index files, in navigation order, hidden and noindex pages left out: one ordered query. */
function listedPages(storage: Storage, projectId: string) {
  return storage.db
    .selectFrom('docs_pages')
    .select(['route', 'title', 'description', 'group_name'])
    .where('project_id', '=', projectId)
    .where('hidden', '=', 0)
    .where(visibleAt('docs_pages', currentGeneration(projectId)))
    .orderBy('position')
    .orderBy('path');
}

/**
 * The llms.txt format (llmstxt.org): `# name`, `> description`, then per navigation group in order of
 * its first page, `## group` and a link to each page's Markdown with its description.
 */
async function buildLlmsText(storage: Storage, site: SiteInfo): Promise<string> {
  const groups = new Map<string, string[]>();
  for (const page of await listedPages(storage, site.projectId).execute()) {
    const line = `- [${page.title}](${site.siteUrl}${markdownPath(page.route)})${page.description ? `: ${page.description}` : ''}`;
    const lines = groups.get(page.group_name);
    if (lines) lines.push(line);
    else groups.set(page.group_name, [line]);
  }
  const sections = [...groups].map(([group, lines]) => `## ${group}\n\n${lines.join('\n')}\n`);
  return [`# ${site.name}\n`, `> ${site.description}\n`, ...sections].join('\n');
}

/** Every listed page in navigation order: `# title`, `Source: url`, then its Markdown. */
async function llmsFullText(storage: Storage, site: SiteInfo): Promise<string> {
  const pages = await listedPages(storage, site.projectId).select('markdown').execute();
  return pages.map((page) => `# ${page.title}\n\nSource: ${pageUrl(site.siteUrl, page.route)}\n\n${page.markdown.trim()}\n`).join('\n');
}

/** llms.txt as it is served: its bytes, its strong ETag, and its compressed copies once made. */
export class LlmsFile {
  readonly body: Buffer;
  /** Strong, one per generation of the index and site settings: `"{generation}-{digest}"`. */
  readonly etag: string;
  readonly #coded = new Map<ContentCoding, Buffer | Promise<unknown>>();

  constructor(text: string, etag: string) {
    this.body = Buffer.from(text);
    this.etag = etag;
  }

  /**
   * The file in `coding`, or null until its copy is made: the first request for a coding starts
   * compressing on libuv's threads and is answered uncompressed meanwhile, so no request waits for it.
   */
  coded(coding: ContentCoding): Buffer | null {
    const kept = this.#coded.get(coding);
    if (kept instanceof Buffer) return kept;
    if (!kept) {
      const made = coding === 'br' ? brotli(this.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) : gzip(this.body);
      // A copy that could not be made is tried again by a later request; meanwhile the plain file is served.
      this.#coded.set(
        coding,
        made.then(
          (bytes) => this.#coded.set(coding, bytes),
          () => this.#coded.delete(coding),
        ),
      );
    }
    return null;
  }
}

/** Codings llms.txt is kept in besides its plain text, best first. */
export const llmsCodings: readonly ContentCoding[] = ['br', 'gzip'];

/** The two index files: llms.txt, and llms-full.txt with every page's Markdown. */
export type LlmsKind = 'index' | 'full';

/**
 * llms.txt and llms-full.txt per project, each built once per generation of its index (and per site name
 * and address) and kept in memory as bytes, so a site of 10,000 pages answers from memory after the first
 * request, in a compressed copy when the client takes one. Requests that arrive while one is being built
 * wait for the same build: llms-full.txt built for each request of thirty at once held 1.6 GB and the event
 * loop for over a second. Bounded: the least recently built go first, and few llms-full.txt files (each
 * as large as its site's docs) are kept.
 */
export class LlmsTextCache {
  readonly #caches: Record<LlmsKind, TtlCache<{ file: Promise<LlmsFile> }>> = {
    index: new TtlCache(60 * 60 * 1000, { maxEntries: 256 }),
    full: new TtlCache(60 * 60 * 1000, { maxEntries: 8 }),
  };

  async get(storage: Storage, site: SiteInfo, kind: LlmsKind = 'index'): Promise<LlmsFile> {
    const { generation } = await readDocsState(storage, site.projectId);
    const key = JSON.stringify([site.projectId, generation, site.name, site.description, site.siteUrl]);
    const cache = this.#caches[kind];
    const build = kind === 'index' ? buildLlmsText : llmsFullText;
    const { file } = (await cache.get(key, async () => {
      const etag = `"${generation}-${createHash('sha256').update(key).digest('base64url').slice(0, 16)}"`;
      return { file: build(storage, site).then((text) => new LlmsFile(text, etag)) };
    }))!;
    return file.catch((error: unknown) => {
      cache.delete(key);
      throw error;
    });
  }
}
