import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonEventStream, uiMessageChunkSchema, type UIMessageChunk } from 'ai';
import { bootstrapIfEmpty } from '../../src/accounts/bootstrap.ts';
import { grantLocal } from '../../src/accounts/local-grants.ts';
import { loadConfig } from '../../src/config/config.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import { startOpenAiServer } from '../../test/support/openai-server.ts';
import { updateProject, waitForBuild, type DocsServer } from '../../bench/docs-client.ts';
import { qualityCorpus } from '../../bench/docs-corpus.ts';
import { temporalRepository } from '../../bench/docs-repositories.ts';
import { askedQuestions, type AssistantQuestion } from './questions.ts';
import { holdsAnswer, scriptedAssistant } from './scripted.ts';

/** Which model answers: the scripted reader (scripted.ts), or one the environment configures. */
export type AssistantEvalModel = { kind: 'scripted' } | { kind: 'configured'; name: string };

export type QuestionKind = 'answerable' | 'unanswerable' | 'follow-up';

export interface QuestionScore {
  name: string;
  kind: QuestionKind;
  /** The turn as the assistant export records it (`answered`, `unanswered`, `clarifying`), or `failed` with the stream's error. */
  resolution: string;
  /** Paths of the pages the answer cited, in its order. */
  cited: string[];
  /** How many of them hold the answer. */
  precise: number;
  /** Whether the turn did what the question needs: answered citing a page that holds the answer, or marked unanswered. */
  correct: boolean;
  /** For a follow-up: answered in its thread, which it continued. */
  sameThread: boolean | null;
  error: string | null;
  seconds: number;
}

export interface AssistantEvalOptions {
  questions: AssistantQuestion[];
  model: AssistantEvalModel;
  /** Where model keys and OPENAI_BASE_URL come from for a configured model. */
  environment?: NodeJS.ProcessEnv;
  onQuestionEnd?(score: QuestionScore, index: number, total: number): void;
}

interface Asked {
  threadId: string | null;
  threadKey: string | null;
  cited: string[];
  error: string | null;
}

/**
 * Runs the questions through the real assistant path: Quire's service (API and worker) on a fresh
 * SQLite database, the Temporal docs as a local Docusaurus repository indexed by its docs build, each
 * question asked over HTTP on the v2 message operation (a follow-up in its question's thread, with the
 * key the first answer gave), the stream read with the AI SDK's own reader, and the turns read back
 * from the assistant export.
 */
export async function runAssistantEval(options: AssistantEvalOptions): Promise<QuestionScore[]> {
  const root = mkdtempSync(join(tmpdir(), 'quire-assistant-eval-'));
  const repositories = join(root, 'repositories');
  mkdirSync(repositories);
  const { pages } = qualityCorpus();
  const repository = temporalRepository(repositories, pages);
  const scripted = options.model.kind === 'scripted' ? await startOpenAiServer(scriptedAssistant(options.questions)) : null;
  const model = options.model.kind === 'scripted' ? 'openai-compatible:eval-reader' : options.model.name;
  let service: RunningService | null = null;
  try {
    const environment = scripted ? { OPENAI_BASE_URL: scripted.url } : (options.environment ?? {});
    const plenty = 1_000_000;
    const config = loadConfig(
      { ...environment, QUIRE_DATA_DIR: join(root, 'data') },
      {
        logLevel: 'silent',
        port: 0,
        host: '127.0.0.1',
        shutdownGraceSeconds: 0,
        docsPollSeconds: 86_400,
        assistantRateLimit: plenty,
        assistantRateLimitPerAddress: plenty,
      },
    );
    service = await startService({ config, api: true, worker: true });
    const firstRun = (await bootstrapIfEmpty(service.context.storage))!;
    await grantLocal(service.context.storage.db, config.dataDir, firstRun.orgId, repositories);
    const server: DocsServer = { url: service.url as string, projectId: firstRun.projectId, key: firstRun.key };
    const started = performance.now();
    await updateProject(server, { repository: repository.path, ref: 'main', model });
    await waitForBuild(server, execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repository.work, encoding: 'utf8' }).trim(), started);
    const pathsByUrl = await pageUrls(server);
    const markdown = new Map(pages.map((page) => [page.path, page.markdown]));

    const questions = askedQuestions(options.questions);
    const asked = new Map<string, Asked & { seconds: number }>();
    for (const { question, after } of questions) {
      const thread = after ? asked.get(after.name) : undefined;
      const begun = performance.now();
      const answer = await ask(server, question.question, thread, pathsByUrl);
      asked.set(question.name, { ...answer, seconds: (performance.now() - begun) / 1000 });
    }
    const turns = await exportedTurns(server);
    return questions.map(({ question, after }, index) => {
      const answer = asked.get(question.name)!;
      const turn = turns.find((row) => row.id === answer.threadId && row.query === question.question);
      const resolution = answer.error ? 'failed' : !turn ? 'not recorded' : turn.responseType === 'clarifying_question' ? 'clarifying' : turn.resolutionStatus;
      const precise = answer.cited.filter((path) => holdsAnswer(markdown.get(path) ?? '', question.answer)).length;
      const sameThread = after ? answer.threadId !== null && answer.threadId === asked.get(after.name)!.threadId : null;
      const kind: QuestionKind = after ? 'follow-up' : question.answerable ? 'answerable' : 'unanswerable';
      const correct = question.answerable ? resolution === 'answered' && precise > 0 && sameThread !== false : resolution === 'unanswered';
      const score: QuestionScore = {
        name: question.name,
        kind,
        resolution,
        cited: answer.cited,
        precise,
        correct,
        sameThread,
        error: answer.error,
        seconds: answer.seconds,
      };
      options.onQuestionEnd?.(score, index, questions.length);
      return score;
    });
  } finally {
    await service?.stop();
    await scripted?.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Asks one question (in `thread` when given) and reads the answer's stream with the AI SDK's reader. */
async function ask(server: DocsServer, question: string, thread: Asked | undefined, pathsByUrl: Map<string, string>): Promise<Asked> {
  const response = await fetch(`${server.url}/discovery/v2/assistant/${server.projectId}/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
    body: JSON.stringify({
      fp: 'assistant-eval',
      messages: [{ id: 'question', role: 'user', parts: [{ type: 'text', text: question }] }],
      ...(thread?.threadId ? { threadId: thread.threadId, threadKey: thread.threadKey } : {}),
    }),
  });
  if (!response.ok) return { threadId: null, threadKey: null, cited: [], error: `HTTP ${response.status}: ${(await response.text()).slice(0, 200)}` };
  const chunks: UIMessageChunk[] = [];
  for await (const result of parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema })) {
    if (!result.success) return { threadId: null, threadKey: null, cited: [], error: `an unreadable stream part: ${result.error.message}` };
    chunks.push(result.value as UIMessageChunk);
  }
  const failure = chunks.find((chunk) => chunk.type === 'error');
  const cited = chunks.flatMap((chunk) => (chunk.type === 'source-url' ? [pathsByUrl.get(chunk.url.split('#')[0]) ?? chunk.url] : []));
  return {
    threadId: response.headers.get('x-thread-id'),
    threadKey: response.headers.get('x-thread-key') ?? thread?.threadKey ?? null,
    cited,
    error: failure?.type === 'error' ? failure.errorText : null,
  };
}

/** Each page's file path by its URL, from the index's page listing. */
async function pageUrls(server: DocsServer): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (let offset = 0; ; offset += 250) {
    const response = await fetch(`${server.url}/v1/docs/${server.projectId}/pages?limit=250&offset=${offset}`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    const { pages, hasMore } = (await response.json()) as { pages: { path: string; url: string }[]; hasMore: boolean };
    for (const page of pages) paths.set(page.url, page.path);
    if (!hasMore) return paths;
  }
}

interface ExportedTurn {
  id: string;
  query: string;
  responseType: string;
  resolutionStatus: string;
}

/** Every turn the assistant export lists for the project. */
async function exportedTurns(server: DocsServer): Promise<ExportedTurn[]> {
  const turns: ExportedTurn[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const response = await fetch(`${server.url}/v1/analytics/${server.projectId}/assistant?limit=1000${query}`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    if (!response.ok) throw new Error(`the assistant export answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const page = (await response.json()) as { conversations: ExportedTurn[]; nextCursor: string | null; hasMore: boolean };
    turns.push(...page.conversations);
    cursor = page.hasMore ? page.nextCursor : null;
  } while (cursor);
  return turns;
}
