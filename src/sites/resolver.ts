import type { PageLink } from './links.ts';
import { siteOf } from './profiles.ts';
import type { Site, SiteFiles } from './site.ts';
import { directoryOf, inside, joinPath, normalizePath, withoutExtension } from './text.ts';

export type LinkTarget = { status: 'external' } | { status: 'found'; file: string } | { status: 'missing'; path: string } | { status: 'outside' };

/**
 * Finds the file a link, image or navigation entry names, with the frameworks' conventions:
 * extensionless links, `index`/`README` pages, `.md`/`.mdx` suffixes, site-absolute links from the
 * site's pages or static folders, and Docusaurus doc ids. Nothing is fetched: links with a scheme
 * (`https:`, `mailto:`) or to another host (`//cdn…`) are external and not checked.
 */
export class Resolver {
  readonly #sites: Site[];
  readonly #files: ReadonlySet<string>;
  readonly #docIds: Map<Site, Map<string, string>>;

  constructor(sites: Site[], files: ReadonlySet<string>, docIds: Map<Site, Map<string, string>>) {
    this.#sites = sites;
    this.#files = files;
    this.#docIds = docIds;
  }

  /** A resolver for `sites` among the files of `access`, with the doc ids of the kinds that name pages by id (read until `deadline`). */
  static async create(sites: Site[], access: SiteFiles, deadline: number): Promise<Resolver> {
    const files = await access.listFiles();
    const docIds = new Map<Site, Map<string, string>>();
    for (const site of sites) {
      const ids = await site.profile.pageIds?.(site, files, access.read, deadline);
      if (ids) docIds.set(site, ids);
    }
    return new Resolver(sites, files, docIds);
  }

  /** The page a navigation entry of `site` names (a doc id, or a path relative to the site's pages), or null. */
  navigationTarget(site: Site, ref: string): string | null {
    const byId = this.#docIds.get(site)?.get(ref);
    if (byId) return byId;
    const path = normalizePath(joinPath(site.contentRoot, ref.startsWith('/') ? ref.slice(1) : ref));
    return path === null ? null : this.#page(path);
  }

  link(from: string, reference: PageLink): LinkTarget {
    const target = reference.target.trim();
    if (target === '' || target.startsWith('#') || target.startsWith('//') || hasScheme(target) || target.includes('{')) return { status: 'external' };
    let path = cutAt(cutAt(target, '#'), '?');
    try {
      path = decodeURIComponent(path);
    } catch {
      // A malformed escape is looked up as written.
    }
    if (path === '') return { status: 'external' };
    const site = siteOf(this.#sites, from);
    const candidates = path.startsWith('/') ? this.#absolute(site, path.slice(1)) : [normalizePath(joinPath(directoryOf(from), path))];
    if (candidates.every((candidate) => candidate === null)) return { status: 'outside' };
    for (const candidate of candidates) {
      if (candidate === null) continue;
      const file = reference.kind === 'image' ? (this.#files.has(candidate) ? candidate : null) : this.#page(candidate, site);
      if (file) return { status: 'found', file };
    }
    return { status: 'missing', path: candidates.find((candidate) => candidate !== null) as string };
  }

  /** Where a site-absolute path may live: under the route prefix in the pages, the pages, the static folders, the site. */
  #absolute(site: Site | undefined, path: string): (string | null)[] {
    if (!site) return [normalizePath(path)];
    const roots: string[] = [];
    const prefix = site.routePrefix.slice(1);
    const underPrefix = prefix && (path === prefix || path.startsWith(`${prefix}/`)) ? path.slice(prefix.length + 1) : null;
    if (underPrefix !== null) roots.push(joinPath(site.contentRoot, underPrefix));
    for (const root of [site.contentRoot, ...site.assetRoots, site.root, '']) roots.push(joinPath(root, path));
    return [...new Set(roots)].map(normalizePath);
  }

  #page(path: string, site?: Site): string | null {
    // Most entries name their file as it is: the first candidate, found without building the others.
    if (this.#files.has(path)) return path;
    for (const candidate of pageCandidates(path)) if (this.#files.has(candidate)) return candidate;
    // A path may name a doc by id: in the linking page's site, else in the site whose pages it points into.
    const byIds = site && this.#docIds.has(site) ? site : this.#sites.find((each) => this.#docIds.has(each) && inside(each.contentRoot, path) !== null);
    if (byIds) {
      const relative = inside(byIds.contentRoot, path);
      const ids = this.#docIds.get(byIds);
      if (relative !== null && ids) return ids.get(relative) ?? ids.get(withoutExtension(relative)) ?? null;
    }
    return null;
  }
}

/** The files a page reference may name: as written, then with the extensions and index pages frameworks add. */
function pageCandidates(path: string): string[] {
  const bare = path.endsWith('/') ? path.slice(0, -1) : path;
  const html = bare.endsWith('.html') ? bare.slice(0, -5) : null;
  const stems = html === null ? [bare] : [bare, html];
  const candidates: string[] = [];
  for (const stem of stems) {
    candidates.push(stem, `${stem}.md`, `${stem}.mdx`);
    for (const index of ['index.md', 'index.mdx', 'README.md', 'readme.md']) candidates.push(joinPath(stem, index));
  }
  return candidates;
}

/** `https:`, `mailto:`, `tel:`, … : a scheme is letters, digits, `+`, `-`, `.` before a colon, before any slash. */
function hasScheme(target: string): boolean {
  const colon = target.indexOf(':');
  if (colon <= 0) return false;
  const slash = target.indexOf('/');
  if (slash >= 0 && slash < colon) return false;
  for (let index = 0; index < colon; index++) {
    const char = target[index];
    const letter = (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z');
    if (!letter && !(index > 0 && ((char >= '0' && char <= '9') || char === '+' || char === '-' || char === '.'))) return false;
  }
  return true;
}

function cutAt(text: string, separator: string): string {
  const index = text.indexOf(separator);
  return index < 0 ? text : text.slice(0, index);
}
