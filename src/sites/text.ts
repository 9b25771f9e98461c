/**
 * Plain string helpers for repository text: every one runs in time linear in its input (no regular
 * expression sees repository content), since the model and the repository choose that text.
 */

export interface FrontMatter {
  /** The YAML between the fences, or null when the page has none. */
  yaml: string | null;
  /** Line of the first YAML line (1-based). */
  yamlLine: number;
  /** The page with the front matter replaced by as many empty lines, so positions stay the same. */
  body: string;
}

/** Splits off a leading `---` fenced YAML block (the convention of every framework Quire checks). */
export function splitFrontMatter(text: string): FrontMatter {
  const start = text.startsWith('\uFEFF') ? 1 : 0;
  if (!text.startsWith('---', start)) return { yaml: null, yamlLine: 0, body: text };
  const firstEnd = text.indexOf('\n', start);
  if (firstEnd < 0 || text.slice(start, firstEnd).trimEnd() !== '---') return { yaml: null, yamlLine: 0, body: text };
  let lineStart = firstEnd + 1;
  while (lineStart <= text.length) {
    const lineEnd = text.indexOf('\n', lineStart);
    const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd).trimEnd();
    if (line === '---' || line === '...') {
      const yaml = text.slice(firstEnd + 1, lineStart);
      const end = lineEnd < 0 ? text.length : lineEnd;
      return { yaml, yamlLine: 2, body: '\n'.repeat(countLines(text.slice(0, end)) - 1) + text.slice(end) };
    }
    if (lineEnd < 0) break;
    lineStart = lineEnd + 1;
  }
  // An opening fence never closed: the whole page would be read as YAML by the frameworks.
  return { yaml: text.slice(firstEnd + 1), yamlLine: 2, body: '' };
}

/** Newlines in `text` plus one. */
export function countLines(text: string): number {
  let lines = 1;
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) lines++;
  return lines;
}

export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export function isPage(path: string): boolean {
  const extension = extensionOf(path);
  return extension === 'md' || extension === 'mdx';
}

export function directoryOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function joinPath(...parts: string[]): string {
  return parts.filter((part) => part !== '' && part !== '.').join('/');
}

/**
 * Resolves `.` and `..` segments of a `/`-separated relative path; null when it climbs above the
 * root (such a link leads outside the repository).
 */
export function normalizePath(path: string): string | null {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else segments.push(segment);
  }
  return segments.join('/');
}

/** `path` relative to `root` when it lies inside it (root '' holds everything), else null. */
export function inside(root: string, path: string): string | null {
  if (root === '') return path;
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : null;
}

export function withoutExtension(path: string): string {
  const extension = extensionOf(path);
  return extension ? path.slice(0, path.length - extension.length - 1) : path;
}
