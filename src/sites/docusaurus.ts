import { moduleObject } from './javascript-literal.ts';
import { docusaurusNavigation } from './docusaurus-sidebars.ts';
import { readFrontMatter } from './front-matter.ts';
import { folderOfIndex, joinRoute } from './routes.ts';
import type { PageFrontMatter, SiteProfile } from './site.ts';
import { directoryOf, inside, isPage, joinPath, normalizePath, withoutExtension } from './text.ts';

const sidebarFiles = ['sidebars.js', 'sidebars.ts', 'sidebars.mjs', 'sidebars.cjs'];
const configFiles = ['docusaurus.config.js', 'docusaurus.config.ts', 'docusaurus.config.mjs'];
const routePrefix = '/docs';

/** Docusaurus: `docusaurus.config.*` or `sidebars.*`, pages under `docs/` named by doc id, static files in `static/`, served under `/docs`. */
export const docusaurus: SiteProfile = {
  kind: 'docusaurus',
  name: 'Docusaurus',
  configFiles: [...configFiles, ...sidebarFiles],
  fallback: false,
  navigationChecked: true,
  partialFolders: [],
  draftFrontMatter: true,
  promptHint: 'Docusaurus: `sidebars.js`/`sidebars.ts` (document ids) and `_category_.json` files; ids come from front matter `id` or the path.',
  async find(root, files) {
    const at = (name: string) => joinPath(root, name);
    if (!docusaurus.configFiles.some((name) => files.has(at(name)))) return null;
    return {
      profile: docusaurus,
      root,
      configFile: configFiles.map(at).find((path) => files.has(path)) ?? null,
      navigationFile: sidebarFiles.map(at).find((path) => files.has(path)) ?? null,
      contentRoot: at('docs'),
      assetRoots: [at('static')],
      routePrefix,
      route: docusaurusRoute,
      excluded: () => false,
    };
  },
  readNavigation: (text) => docusaurusNavigation(text),
  describe(text) {
    const config = moduleObject(text);
    const field = (name: string) => {
      const value = config.kind === 'object' ? config.entries.find(([key]) => key === name)?.[1] : undefined;
      return value?.kind === 'string' && value.value !== '' ? value.value : null;
    };
    return { name: field('title'), description: field('tagline') };
  },
  async pageIds(site, files, read, deadline) {
    const ids = new Map<string, string>();
    for (const file of files) {
      const relative = inside(site.contentRoot, file);
      if (relative === null || !isPage(file)) continue;
      // Past the deadline, ids come from paths alone: a custom id then reads as missing, never the reverse.
      const text = Date.now() <= deadline ? await read(file) : null;
      ids.set(docId(relative, text === null ? null : readFrontMatter(text).id), file);
    }
    return ids;
  },
};

/**
 * A doc id: the path without extension and without number prefixes (`01-intro.md` is `intro`), the
 * last part replaced by the front matter's `id` when it has one.
 */
function docId(relativePath: string, customId: string | null): string {
  const segments = withoutExtension(relativePath).split('/').map(withoutNumberPrefix);
  if (customId) segments[segments.length - 1] = customId;
  return segments.join('/');
}

/**
 * A doc's route under `/docs`: its `slug` (absolute from `/docs`, or relative to the doc's folder),
 * else its id, an `index` or `README` page standing for its folder.
 */
function docusaurusRoute(relativePath: string, frontMatter: PageFrontMatter): string {
  if (frontMatter.slug !== null) {
    const slug = frontMatter.slug.startsWith('/') ? frontMatter.slug.slice(1) : joinPath(directoryOf(docId(relativePath, null)), frontMatter.slug);
    return joinRoute(routePrefix, normalizePath(slug) ?? '');
  }
  const id = docId(relativePath, frontMatter.id);
  const readme = id === 'README' || id.endsWith('/README') ? `${id.slice(0, -'README'.length)}index` : id;
  return joinRoute(routePrefix, folderOfIndex(readme));
}

/** `01-intro` → `intro`, as Docusaurus's default number-prefix parser does; `2024` stays. */
export function withoutNumberPrefix(segment: string): string {
  let index = 0;
  while (index < segment.length && segment[index] >= '0' && segment[index] <= '9') index++;
  if (index === 0) return segment;
  let end = index;
  while (end < segment.length && (segment[end] === '-' || segment[end] === '_' || segment[end] === '.' || segment[end] === ' ')) end++;
  return end > index && end < segment.length ? segment.slice(end) : segment;
}
