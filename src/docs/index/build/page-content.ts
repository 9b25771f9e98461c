import { createHash } from 'node:crypto';
import type { PageAnalysis } from '../../../sites/page.ts';
import type { SitePage } from '../../../sites/read-site.ts';
import { readFrontMatter } from '../../../sites/front-matter.ts';
import { splitFrontMatter, withoutExtension } from '../../../sites/text.ts';
import type { PageToWrite, StoredPage } from '../types.ts';

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * A page's source hash: its text's digest, then its place in the navigation's. An incremental build
 * compares the two halves apart: a page whose text is unchanged is not parsed again, even when a
 * navigation change moved it.
 */
export function sourceHash(textDigest: string, page: SitePage): string {
  return `${textDigest}:${digest(JSON.stringify([page.route, page.group, page.position, page.hidden]), 16)}`;
}

export const textDigestOf = (text: string) => digest(text, 32);

/** The two halves of a stored hash; a hash of another form matches nothing. */
export function splitHash(hash: string | undefined): { text: string; place: string } | null {
  const at = hash?.indexOf(':') ?? -1;
  return hash && at > 0 ? { text: hash.slice(0, at), place: hash.slice(at + 1) } : null;
}

/** What the index stores of a page the analyzer read; a page it could not read (too slow) keeps its text as one section. */
export function pageToWrite(page: SitePage, text: string, analysis: PageAnalysis | null): PageToWrite {
  const markdown = splitFrontMatter(text).body.trim();
  const frontMatter = analysis?.frontMatter ?? readFrontMatter(text);
  const title = analysis?.title ?? frontMatter.title ?? withoutExtension(page.path.slice(page.path.lastIndexOf('/') + 1));
  const sections = analysis
    ? analysis.sections.map(({ anchor, heading, level, markdown: part, text: plain }) => ({ anchor, heading, level, markdown: part, text: plain }))
    : [{ anchor: '', heading: title, level: 1, markdown, text: markdown }];
  return {
    ...placeOf(page),
    title,
    description: frontMatter.description,
    keywords: frontMatter.keywords,
    markdown,
    sections,
    sourceHash: sourceHash(textDigestOf(text), page),
  };
}

/** A stored page moved to its new place in the navigation, its content as it was. */
export function movedPage(page: SitePage, stored: StoredPage, textDigest: string): PageToWrite {
  const { sourceHash: _old, ...content } = stored;
  return { ...content, ...placeOf(page), sourceHash: sourceHash(textDigest, page) };
}

function placeOf(page: SitePage) {
  return { path: page.path, route: page.route, group: page.group, position: page.position, hidden: page.hidden };
}
