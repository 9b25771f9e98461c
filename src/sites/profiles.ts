import { docusaurus } from './docusaurus.ts';
import { mintlify } from './mintlify.ts';
import { mkdocs } from './mkdocs.ts';
import { plain } from './plain.ts';
import type { Site, SiteFiles, SiteProfile } from './site.ts';
import { directoryOf, inside, joinPath } from './text.ts';

/** Every site kind Quire knows. A folder may hold several (a Mintlify site beside a Docusaurus one); `fallback` kinds only when it holds none. */
export const siteProfiles: readonly SiteProfile[] = [mintlify, mkdocs, docusaurus, plain];

/**
 * The sites of a repository: a kind's configuration in `within` or one folder down (`docs/docs.json`,
 * `website/sidebars.js`); when there is none, a plain folder of pages at `within`. Configuration files
 * that move the pages (MkDocs `docs_dir`) are read.
 */
export async function findSites(access: SiteFiles, within = ''): Promise<Site[]> {
  const files = await access.listFiles();
  const folders = new Set<string>();
  for (const file of files) {
    const relative = inside(within, directoryOf(file));
    if (relative !== null && !relative.includes('/')) folders.add(joinPath(within, relative));
  }
  const sites: Site[] = [];
  for (const root of [...folders].sort()) {
    for (const profile of siteProfiles.filter((each) => !each.fallback)) {
      const site = await profile.find(root, files, access.read);
      if (site) sites.push(site);
    }
  }
  if (sites.length > 0) return sites;
  for (const profile of siteProfiles.filter((each) => each.fallback)) {
    const site = await profile.find(within, files, access.read);
    if (site) return [site];
  }
  return [];
}

/** The site a file belongs to: the one whose pages hold it, the deepest first. */
export function siteOf(sites: Site[], path: string): Site | undefined {
  let best: Site | undefined;
  for (const site of sites) {
    if (inside(site.contentRoot, path) !== null && (!best || site.contentRoot.length > best.contentRoot.length)) best = site;
  }
  return best;
}
