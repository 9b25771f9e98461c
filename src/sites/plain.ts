import { folderNavigation } from './navigation.ts';
import { cleanRoute } from './routes.ts';
import type { SiteProfile } from './site.ts';
import { isPage } from './text.ts';

/** Files and folders named with a leading `_` are partials that other pages include, in every kind. */
export function isPartial(relativePath: string, partialFolders: string[]): boolean {
  const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  return name.startsWith('_') || relativePath.includes('/_') || partialFolders.some((folder) => relativePath.startsWith(`${folder}/`));
}

/**
 * Files and folders named with a leading `.` (`.private/notes.md`) are never published, in every kind.
 * MkDocs excludes `.*` by default and Docusaurus does not look into them; Mintlify names only `.git`,
 * `.github`, `.claude` and `.agents`, but a page in any other dot-folder is tooling too (a template, an
 * agent's notes), and serving one a site did not mean to publish costs more than leaving one out.
 */
export function isDotPath(relativePath: string): boolean {
  return relativePath.startsWith('.') || relativePath.includes('/.');
}

/** A folder of Markdown and MDX pages without a framework's configuration: its folders, then its files, by name, routes from paths. */
export const plain: SiteProfile = {
  kind: 'plain',
  name: 'Pages',
  configFiles: [],
  fallback: true,
  navigationChecked: false,
  partialFolders: [],
  draftFrontMatter: true,
  promptHint: null,
  async find(root, files) {
    const holdsPages = [...files].some((file) => isPage(file) && (root === '' || file.startsWith(`${root}/`)));
    if (!holdsPages) return null;
    return {
      profile: plain,
      root,
      configFile: null,
      navigationFile: null,
      contentRoot: root,
      assetRoots: [root],
      routePrefix: '',
      route: cleanRoute(''),
      excluded: () => false,
    };
  },
  readNavigation: (_text, site, files) => ({
    tree: folderNavigation(files, site.contentRoot, '', (relative) => isPartial(relative, plain.partialFolders) || isDotPath(relative)),
    listsEveryPage: true,
  }),
  describe: () => ({ name: null, description: null }),
};
