/** Parses pages off the main thread for page-analyzer.ts, so a page that parses slowly can be stopped. */
import { parentPort } from 'node:worker_threads';
import { checkPage } from './markdown.ts';
import { referencesOf } from './references.ts';

parentPort!.on('message', async (request: { id: number; path: string; text: string }) => {
  const problems = await checkPage(request.path, request.text);
  parentPort!.postMessage({ id: request.id, problems, references: referencesOf(request.path, request.text) });
});
