/** Analyzes pages off the main thread for page-analyzer.ts, so a page that parses slowly can be stopped. */
import { parentPort } from 'node:worker_threads';
import { analyzePage, type AnalysisDepth } from './page.ts';

parentPort!.on('message', async (request: { id: number; path: string; text: string; depth: AnalysisDepth }) => {
  parentPort!.postMessage({ id: request.id, analysis: await analyzePage(request.path, request.text, request.depth) });
});
