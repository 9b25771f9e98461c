import { createPageAnalyzer, type PageAnalyzer } from '../../sites/page-analyzer.ts';
import { findSites } from '../../sites/profiles.ts';
import { Resolver } from '../../sites/resolver.ts';
import type { Problem, Site, SiteFiles } from '../../sites/site.ts';
import { inside, isPage } from '../../sites/text.ts';
import { configFileProblems, isConfigFile } from './config-files.ts';
import { linkProblems } from './links.ts';
import { navigationProblems } from './navigation.ts';
import type { ChangeToCheck, CheckLimits, CheckReport } from './types.ts';

/**
 * Checks a change before it is committed, as the docs build would: pages compile (Markdown and MDX),
 * front matter and JSON/YAML files parse, links and images of changed pages resolve, navigation
 * entries name pages and new pages are in the navigation. Problems the base already had are not the
 * change's and are left out. Files beyond the limits are reported as skipped, never as passed.
 */
export async function checkChange(change: ChangeToCheck, limits: CheckLimits): Promise<CheckReport> {
  const analyzer = createPageAnalyzer({ pageTimeoutMs: limits.pageTimeoutMs, deadline: limits.deadline, signal: limits.signal });
  try {
    const report = await checkWith(analyzer, change, limits);
    return { ...report, skipped: [...report.skipped, ...analyzer.skipped] };
  } finally {
    await analyzer.close();
  }
}

async function checkWith(analyzer: PageAnalyzer, change: ChangeToCheck, limits: CheckLimits): Promise<CheckReport> {
  const problems: Problem[] = [];
  const skipped: string[] = [];
  let outOfTime = false;
  const proceed = (path: string) => {
    if (limits.signal?.aborted) return false;
    if (Date.now() <= limits.deadline) return true;
    if (!outOfTime) skipped.push(`${path} and later files: the checks ran out of time`);
    outOfTime = true;
    return false;
  };
  const fileProblems = async (path: string, text: string): Promise<Problem[] | null> =>
    isPage(path) ? ((await analyzer.analyze(path, text))?.problems ?? null) : configFileProblems(path, text);
  const linksOf = async (path: string, text: string) => (await analyzer.analyze(path, text))?.links ?? [];
  const added = new Set(change.changes.filter((file) => file.status === 'added').map((file) => file.path));
  const deleted = change.changes.filter((file) => file.status === 'deleted').map((file) => file.path);
  const baseFiles = new Set([...change.files].filter((path) => !added.has(path)).concat(deleted));
  const present = change.changes.filter((file) => file.status !== 'deleted') as { path: string; status: 'added' | 'modified' }[];
  const pages = present.filter((file) => isPage(file.path));
  const configs = present.filter((file) => isConfigFile(file.path));

  for (const file of [...pages, ...configs]) {
    if (!proceed(file.path)) break;
    const text = await change.read(file.path);
    if (text === null) {
      skipped.push(`${file.path}: larger than ${limits.maxFileBytes} bytes, or not text`);
      continue;
    }
    const found = await fileProblems(file.path, text);
    if (found === null || found.length === 0) continue;
    const baseText = file.status === 'modified' ? await change.readBase(file.path) : null;
    // A file the base already failed to compile or parse was not broken by this change.
    if (baseText !== null && ((await fileProblems(file.path, baseText)) ?? []).length > 0) continue;
    problems.push(...found);
  }

  const now: SiteFiles = { listFiles: async () => change.files, read: change.read };
  const before: SiteFiles = { listFiles: async () => baseFiles, read: change.readBase };
  const sites = await findSites(now);
  const baseSites = await findSites(before);
  const current = await Resolver.create(sites, now, limits.deadline);
  const base = await Resolver.create(baseSites, before, limits.deadline);
  const otherPages =
    deleted.length === 0 ? [] : [...change.files].filter((path) => isPage(path) && !added.has(path) && !pages.some((page) => page.path === path));
  if (otherPages.length > limits.maxScannedFiles)
    skipped.push(`links of ${otherPages.length - limits.maxScannedFiles} unchanged pages: more than ${limits.maxScannedFiles} to scan`);
  problems.push(
    ...(await linkProblems({
      changedPages: pages,
      otherPages: otherPages.slice(0, limits.maxScannedFiles),
      current,
      base,
      read: change.read,
      readBase: change.readBase,
      linksOf,
      proceed,
    })),
  );

  const changedPaths = new Set(change.changes.map((file) => file.path));
  // A plain folder lists every page it holds: it has no navigation of its own to get wrong.
  const navigated = sites.filter((site) => site.profile.navigationChecked);
  for (const site of navigated) {
    const touched =
      (site.navigationFile !== null && changedPaths.has(site.navigationFile)) ||
      change.changes.some((file) => file.status !== 'modified' && isPage(file.path) && inside(site.contentRoot, file.path) !== null);
    const { files, read, readBase } = change;
    problems.push(...(await navigationProblems({ site, current, base, files, baseFiles, addedPages: [...added], touched, read, readBase })));
  }
  return { checked: checkedPhrases(pages.length, configs.length, navigated), problems, skipped };
}

function checkedPhrases(pages: number, configs: number, sites: Site[]): string[] {
  const passed: string[] = [];
  if (pages > 0) passed.push(`Markdown and MDX compile, front matter is valid YAML (${pages} ${pages === 1 ? 'page' : 'pages'})`);
  if (configs > 0) passed.push(`JSON and YAML files parse (${configs} ${configs === 1 ? 'file' : 'files'})`);
  if (pages > 0) passed.push('Internal links and images resolve');
  for (const site of sites) {
    const where = site.navigationFile ? `\`${site.navigationFile}\`` : 'autogenerated sidebars';
    passed.push(`${site.profile.name} navigation (${where}) names existing pages and lists every new page`);
  }
  return passed;
}
