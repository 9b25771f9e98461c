import type { PageAnalyzer } from '../../../sites/page-analyzer.ts';
import type { Storage } from '../../../storage/dialect.ts';
import { getPage } from '../pages.ts';
import type { PageError } from '../queue/complete.ts';
import type { Build, PageToWrite } from '../types.ts';
import { writePages } from '../write.ts';
import { movedPage, pageToWrite } from './page-content.ts';
import type { BuildPlan } from './plan.ts';

/** Pages per write: a transaction short enough not to hold the project's state row for long. */
const pagesPerWrite = 100;

/**
 * Writes the plan's pages into `build`'s generation in batches: moved pages from their stored
 * content, changed ones parsed by `analyzer` (several at once). A page that does not parse is indexed
 * as its text, one that takes too long as plain text; both are returned as page errors.
 */
export async function writePlan(storage: Storage, build: Build, plan: BuildPlan, analyzer: PageAnalyzer): Promise<PageError[]> {
  const errors: PageError[] = [];
  let batch: PageToWrite[] = [];
  const flush = async () => {
    if (batch.length > 0) await writePages(storage, build, batch);
    batch = [];
  };
  const add = async (page: PageToWrite) => {
    batch.push(page);
    if (batch.length >= pagesPerWrite) await flush();
  };
  for (const { page, textDigest } of plan.move) {
    const stored = await getPage(storage, build.projectId, page.path);
    if (stored) await add(movedPage(page, stored, textDigest));
  }
  // Pages are handed to the analyzer a batch at a time, so its workers stay busy while a batch is written.
  for (let start = 0; start < plan.parse.length; start += pagesPerWrite) {
    const pages = plan.parse.slice(start, start + pagesPerWrite);
    const analyses = pages.map(({ page, text }) => analyzer.analyze(page.path, text));
    for (const [index, { page, text }] of pages.entries()) {
      const analysis = await analyses[index];
      const problem = analysis?.problems[0];
      if (problem) errors.push({ path: page.path, message: `${problem.line ? `Line ${problem.line}: ` : ''}${problem.message}` });
      if (!analysis) errors.push({ path: page.path, message: `The page was indexed as plain text: ${skippedReason(analyzer, page.path)}.` });
      await add(pageToWrite(page, text, analysis));
    }
  }
  await flush();
  return errors;
}

/** Why the analyzer skipped the page, as its own reasons say without the path they start with. */
function skippedReason(analyzer: PageAnalyzer, path: string): string {
  const prefix = `${path}: `;
  const reasons = analyzer.skipped.filter((reason) => reason.startsWith(prefix)).map((reason) => reason.slice(prefix.length));
  return reasons.join('; ') || 'it could not be parsed';
}
