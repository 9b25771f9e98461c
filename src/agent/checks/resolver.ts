import type { Reference } from './references.ts';
import { pageCandidates, siteOf, type Site } from './sites.ts';
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

  /** The page a navigation entry of `site` names, or null. */
  navigationTarget(site: Site, ref: string): string | null {
    const base = site.framework === 'mintlify' ? site.root : site.contentRoot;
    const byId = site.framework === 'docusaurus' ? this.#docIds.get(site)?.get(ref) : undefined;
    if (byId) return byId;
    const path = normalizePath(joinPath(base, ref.startsWith('/') ? ref.slice(1) : ref));
    return path === null ? null : this.#page(path);
  }

  link(from: string, reference: Reference): LinkTarget {
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
    for (const candidate of pageCandidates(path)) if (this.#files.has(candidate)) return candidate;
    const docusaurus =
      site?.framework === 'docusaurus' ? site : this.#sites.find((each) => each.framework === 'docusaurus' && inside(each.contentRoot, path) !== null);
    if (docusaurus) {
      const relative = inside(docusaurus.contentRoot, path);
      const ids = this.#docIds.get(docusaurus);
      if (relative !== null && ids) return ids.get(relative) ?? ids.get(withoutExtension(relative)) ?? null;
    }
    return null;
  }
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
