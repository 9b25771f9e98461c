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
 * content, changed ones parsed by `analyzer`. A page that does not compile is indexed as far as it
 * parses, one that takes too long as plain text; both are returned as page errors.
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
  for (const { page, text } of plan.parse) {
    const skippedBefore = analyzer.skipped.length;
    const analysis = await analyzer.analyze(page.path, text);
    const problem = analysis?.problems[0];
    if (problem) errors.push({ path: page.path, message: `${problem.line ? `Line ${problem.line}: ` : ''}${problem.message}` });
    if (!analysis) {
      const prefix = `${page.path}: `;
      const reasons = analyzer.skipped.slice(skippedBefore).map((reason) => (reason.startsWith(prefix) ? reason.slice(prefix.length) : reason));
      const reason = reasons.join('; ') || 'it could not be parsed';
      errors.push({ path: page.path, message: `The page was indexed as plain text: ${reason}.` });
    }
    await add(pageToWrite(page, text, analysis));
  }
  await flush();
  return errors;
}
