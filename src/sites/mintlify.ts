import { ignoreMatcher } from './ignore-patterns.ts';
import { maxNavigationDepth, type NavigationItem, type SiteNavigation } from './navigation.ts';
import { cleanRoute } from './routes.ts';
import type { SiteProfile } from './site.ts';
import { joinPath } from './text.ts';

/** Keys of `navigation` objects that title a tab-like division (each holds groups) and a group. */
const tabKeys = ['tab', 'anchor', 'dropdown', 'version', 'language'];

/** What Mintlify leaves out of every build besides the site's `.mintignore` (its `.` folders are left out in every kind). */
const ignoredByDefault = ['node_modules/'];

/**
 * Mintlify: `docs.json` (or the older `mint.json`) at the site root, pages beside it, routes from paths.
 * Files its `.mintignore` (gitignore patterns, beside `docs.json`) names are not published, even when
 * the navigation lists them.
 */
export const mintlify: SiteProfile = {
  kind: 'mintlify',
  name: 'Mintlify',
  configFiles: ['docs.json', 'mint.json'],
  fallback: false,
  navigationChecked: true,
  partialFolders: ['snippets'],
  draftFrontMatter: false,
  promptHint: 'Mintlify: `docs.json` (or the older `mint.json`) "navigation" lists pages by path without extension.',
  async find(root, files, read) {
    const config = mintlify.configFiles.map((name) => joinPath(root, name)).find((path) => files.has(path));
    if (!config) return null;
    const ignoreFile = joinPath(root, '.mintignore');
    const ignored = (files.has(ignoreFile) ? await read(ignoreFile) : null) ?? '';
    return {
      profile: mintlify,
      root,
      configFile: config,
      navigationFile: config,
      contentRoot: root,
      assetRoots: [root],
      routePrefix: '',
      route: cleanRoute(''),
      excluded: ignoreMatcher([...ignoredByDefault, ...ignored.split('\n')], ignoreFile),
    };
  },
  readNavigation: (text) => (text === null ? null : mintlifyNavigation(text)),
  describe(text) {
    const config = parseJson(text) as { name?: unknown; description?: unknown } | null;
    return { name: stringOrNull(config?.name), description: stringOrNull(config?.description) };
  },
};

/**
 * The navigation of a `docs.json` or `mint.json`: tabs, anchors, dropdowns, versions and languages
 * (tab-like, `navigation.tabs[].groups[]`), groups (`navigation.groups`, the legacy
 * `navigation: [{group, pages}]`), nested groups in `pages`, and a group's `root` page. OpenAPI
 * operations (`GET /users`) and external links are not files.
 */
export function mintlifyNavigation(text: string): SiteNavigation | null {
  const config = parseJson(text);
  if (config === undefined) return null;
  const lines = stringLines(text);
  // Strings are pages only in a `pages` list or as a group's `root`; elsewhere they are icons, links, labels.
  const items = (value: unknown, depth: number, pages: boolean): NavigationItem[] => {
    if (depth > maxNavigationDepth) return [];
    if (Array.isArray(value)) return value.flatMap((child) => items(child, depth + 1, pages));
    if (typeof value === 'string') {
      const page = pages && value !== '' && !value.includes(' ') && !value.includes('://');
      return page ? [{ type: 'page', ref: value, line: lines.get(value), title: null }] : [];
    }
    if (!value || typeof value !== 'object') return [];
    const fields = value as Record<string, unknown>;
    const children = items(fields.root, depth + 1, true);
    for (const [key, child] of Object.entries(fields))
      if (key !== 'root' && typeof child === 'object') children.push(...items(child, depth + 1, key === 'pages'));
    const tabKey = tabKeys.find((key) => typeof fields[key] === 'string');
    const group = typeof fields.group === 'string' ? fields.group : null;
    const title = group ?? (tabKey ? (fields[tabKey] as string) : null);
    if (title === null) return children;
    return [{ type: 'group', title, tab: group === null, hidden: fields.hidden === true, children }];
  };
  return { tree: items((config as { navigation?: unknown } | null)?.navigation, 0, false), listsEveryPage: false };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The line of the first occurrence of each JSON string in `text`, in one pass (a search per entry would be quadratic). */
function stringLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let line = 1;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '\n') line++;
    if (text[index] !== '"') continue;
    let end = index + 1;
    while (end < text.length && text[end] !== '"' && text[end] !== '\n') end += text[end] === '\\' ? 2 : 1;
    try {
      const value = JSON.parse(text.slice(index, end + 1)) as string;
      if (!lines.has(value)) lines.set(value, line);
    } catch {
      // Not a complete string literal: the file is checked as JSON elsewhere.
    }
    // Stop before a newline that ended an unterminated string, so it is still counted.
    index = text[end] === '\n' ? end - 1 : end;
  }
  return lines;
}
