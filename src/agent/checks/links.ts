import type { PageLink } from '../../sites/links.ts';
import type { LinkTarget, Resolver } from '../../sites/resolver.ts';
import type { Problem } from '../../sites/site.ts';

export interface LinkCheckInput {
  /** Pages the change added or modified. */
  changedPages: { path: string; status: 'added' | 'modified' }[];
  /** Pages the change did not touch, scanned for links to what it deleted (empty when it deleted nothing). */
  otherPages: string[];
  current: Resolver;
  base: Resolver;
  read(path: string): Promise<string | null>;
  readBase(path: string): Promise<string | null>;
  /** The links and images of a page (none when it could not be parsed). */
  linksOf(path: string, text: string): Promise<PageLink[]>;
  /** Called before each page; false stops the scan (the time ran out). */
  proceed(path: string): boolean;
}

/**
 * Internal links and images that lead nowhere. A changed page's link is reported unless the base
 * version of the page had the same link, already broken (the change did not cause it); a page the
 * change did not touch is reported only for links to files the change deleted or moved.
 */
export async function linkProblems(input: LinkCheckInput): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const page of input.changedPages) {
    if (!input.proceed(page.path)) break;
    const text = await input.read(page.path);
    if (text === null) continue;
    let brokenBefore: Set<string> | null = null;
    for (const reference of await input.linksOf(page.path, text)) {
      const target = input.current.link(page.path, reference);
      if (target.status === 'found' || target.status === 'external') continue;
      if (page.status === 'modified') {
        brokenBefore ??= await brokenAtBase(page.path, input);
        if (brokenBefore.has(reference.target)) continue;
      }
      problems.push(describe(page.path, reference, target, false));
    }
  }
  for (const path of input.otherPages) {
    if (!input.proceed(path)) break;
    const text = await input.read(path);
    if (text === null) continue;
    for (const reference of await input.linksOf(path, text)) {
      const target = input.current.link(path, reference);
      if ((target.status === 'missing' || target.status === 'outside') && input.base.link(path, reference).status === 'found') {
        problems.push(describe(path, reference, target, true));
      }
    }
  }
  return problems;
}

async function brokenAtBase(path: string, input: LinkCheckInput): Promise<Set<string>> {
  const text = await input.readBase(path);
  const broken = new Set<string>();
  if (text === null) return broken;
  for (const reference of await input.linksOf(path, text)) {
    const status = input.base.link(path, reference).status;
    if (status === 'missing' || status === 'outside') broken.add(reference.target);
  }
  return broken;
}

function describe(file: string, reference: PageLink, target: LinkTarget, removed: boolean): Problem {
  const what = reference.kind === 'image' ? `shows the image \`${reference.target}\`` : `links to \`${reference.target}\``;
  let why: string;
  if (target.status === 'outside') why = 'which points outside the repository';
  else if (removed) why = 'a page this change deleted or moved; point the link at the new location';
  else
    why = `which does not exist (no file at \`${(target as { path: string }).path}\`${reference.kind === 'link' ? ' or with .md/.mdx or an index page' : ''})`;
  return { file, line: reference.line, message: `${what}, ${why}.` };
}
