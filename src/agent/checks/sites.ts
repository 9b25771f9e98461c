import { parse as parseYaml } from 'yaml';
import { directoryOf, inside, joinPath, normalizePath } from './text.ts';

export type Framework = 'mintlify' | 'mkdocs' | 'docusaurus';

/** A documentation site in the repository, found by its framework's configuration file. */
export interface Site {
  framework: Framework;
  /** The file that holds the navigation (`docs.json`, `mkdocs.yml`, `sidebars.js`), or null when there is none. */
  navigationFile: string | null;
  /** Folder of the site's configuration ('' is the repository root). */
  root: string;
  /** Folder of the pages: the root (Mintlify), `docs_dir` (MkDocs), `docs/` (Docusaurus). */
  contentRoot: string;
  /** Folders a site-absolute link (`/images/a.png`) may point into, besides the pages. */
  assetRoots: string[];
  /** URL path the pages are served under (`/docs` for Docusaurus), stripped from site-absolute links. */
  routePrefix: string;
}

const mintlifyFiles = ['docs.json', 'mint.json'];
const mkdocsFiles = ['mkdocs.yml', 'mkdocs.yaml'];
const sidebarFiles = ['sidebars.js', 'sidebars.ts', 'sidebars.mjs', 'sidebars.cjs'];
const docusaurusFiles = ['docusaurus.config.js', 'docusaurus.config.ts', 'docusaurus.config.mjs', ...sidebarFiles];

/**
 * The sites of a repository: a framework's configuration at the root or one folder down (`docs/docs.json`,
 * `website/sidebars.js`). `readConfig` gives the text of the MkDocs configuration, whose `docs_dir` moves the pages.
 */
export async function findSites(files: ReadonlySet<string>, readConfig: (path: string) => Promise<string | null>): Promise<Site[]> {
  const folders = new Set<string>();
  for (const file of files) {
    const folder = directoryOf(file);
    if (!folder.includes('/')) folders.add(folder);
  }
  const sites: Site[] = [];
  for (const root of [...folders].sort()) {
    const at = (name: string) => joinPath(root, name);
    const mintlify = mintlifyFiles.map(at).find((path) => files.has(path));
    if (mintlify) sites.push({ framework: 'mintlify', navigationFile: mintlify, root, contentRoot: root, assetRoots: [root], routePrefix: '' });
    const mkdocs = mkdocsFiles.map(at).find((path) => files.has(path));
    if (mkdocs) {
      const contentRoot = joinPath(root, docsDirectory(await readConfig(mkdocs)));
      sites.push({ framework: 'mkdocs', navigationFile: mkdocs, root, contentRoot, assetRoots: [contentRoot], routePrefix: '' });
    }
    if (docusaurusFiles.some((name) => files.has(at(name)))) {
      sites.push({
        framework: 'docusaurus',
        navigationFile: sidebarFiles.map(at).find((path) => files.has(path)) ?? null,
        root,
        contentRoot: at('docs'),
        assetRoots: [at('static')],
        routePrefix: '/docs',
      });
    }
  }
  return sites;
}

function docsDirectory(config: string | null): string {
  try {
    const value = config ? (parseYaml(config, { logLevel: 'silent' }) as { docs_dir?: unknown } | null)?.docs_dir : undefined;
    if (typeof value === 'string') return normalizePath(value) ?? 'docs';
  } catch {
    // An unreadable configuration is reported by the config-file check; the default folder stands in.
  }
  return 'docs';
}

/** The site a file belongs to: the one whose pages hold it, the deepest first. */
export function siteOf(sites: Site[], path: string): Site | undefined {
  let best: Site | undefined;
  for (const site of sites) {
    if (inside(site.contentRoot, path) !== null && (!best || site.contentRoot.length > best.contentRoot.length)) best = site;
  }
  return best;
}

/** The files a page reference may name: as written, then with the extensions and index pages frameworks add. */
export function pageCandidates(path: string): string[] {
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
