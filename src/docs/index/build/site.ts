import { findSites } from '../../../sites/profiles.ts';
import { readSite, type SiteContents } from '../../../sites/read-site.ts';
import type { SiteFiles } from '../../../sites/site.ts';

/** A build that cannot go on; its message becomes the project's docs error as it is. */
export class BuildFailure extends Error {
  override name = 'BuildFailure';
}

/**
 * The site a project's docs path holds: the one rooted there, else the first found in or one folder
 * below it (a plain folder when no configuration is found), or null when there are no pages at all.
 * A navigation file that does not parse fails the build: indexing without it would drop every page
 * it orders, so the last good index keeps answering instead.
 */
export async function readDocsSite(access: SiteFiles, docsPath: string): Promise<SiteContents | null> {
  const sites = await findSites(access, docsPath);
  const site = sites.find((each) => each.root === docsPath) ?? sites[0];
  if (!site) return null;
  if (site.navigationFile !== null) {
    const text = await access.read(site.navigationFile);
    if (text === null || site.profile.readNavigation(text, site, await access.listFiles()) === null) {
      throw new BuildFailure(
        `${site.navigationFile} could not be read as ${site.profile.name} navigation (it does not parse, or is not text); fix it and refresh the docs.`,
      );
    }
  }
  const contents = await readSite(access, docsPath);
  return contents.find((each) => each.root === site.root && each.kind === site.profile.kind) ?? null;
}
