import { PassThrough } from 'node:stream';
import type { LanguageModel } from 'ai';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { checkModel, languageModel } from '../../llm/models.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { AssistantThreadRow } from '../../storage/tables/assistant.ts';
import { siteOf } from '../surface/site.ts';
import { exchangesOfBody, modelMessages, questionOf } from './conversation.ts';
import { reportFailure } from './failures.ts';
import { assistantInstructions } from './instructions.ts';
import type { AnswerProtocol } from './protocols.ts';
import type { MessageBody } from './schemas.ts';
import { newThread, recordTurn, threadHistory, threadOpens } from './threads.ts';
import { answerTurn } from './turn.ts';
import { storableText } from '../../lib/storable-text.ts';
import { assistantModel } from './model-choice.ts';

/** The header the embeddable assistant script sends (`X-Quire-Assistant: web`); an integration names itself with any other value. */
export const callerHeader = 'x-quire-assistant';

export type AssistantCaller = 'web' | 'api' | 'other';

export function callerOf(request: FastifyRequest): AssistantCaller {
  const value = request.headers[callerHeader];
  if (value === undefined) return 'api';
  return value === 'web' ? 'web' : 'other';
}

/** SDK model objects by name, per configuration: made once, reused by every message (they hold no state of a call). */
const models = new WeakMap<Config, Map<string, LanguageModel>>();
/** Model names kept per configuration; beyond, the oldest is made again when next asked. */
const maxModels = 100;

/** The model that answers (model-choice.ts); 409 when none is set or the server lacks its key. */
function modelOf(context: AppContext, project: ProjectRow): LanguageModel {
  const { name } = assistantModel(context.config, project);
  if (!name) {
    throw new ApiError(
      'project_not_configured',
      `Project ${project.id} has no model for the assistant: set the project's assistant model or model, or QUIRE_MODEL on the server.`,
    );
  }
  let made = models.get(context.config);
  if (!made) models.set(context.config, (made = new Map()));
  const found = made.get(name);
  if (found) return found;
  const problem = checkModel(name, context.config);
  if (problem) throw new ApiError('project_not_configured', problem);
  const model = languageModel(name, context.config);
  if (made.size >= maxModels) made.delete(made.keys().next().value!);
  made.set(name, model);
  return model;
}

/**
 * The thread a message continues (its key checked, else 404) or a new one, whose `key` is sent once
 * with its answer. A new thread is stored with its first turn (`row`), so starting one costs no write
 * of its own. Reads no earlier turns: those are read once the limits have taken the message.
 */
async function threadFor(context: AppContext, project: ProjectRow, body: MessageBody) {
  if (body.threadId === undefined) {
    const thread = newThread(project, body.fp);
    return { id: thread.id, key: thread.key, row: thread.row };
  }
  if (!(await threadOpens(context.storage, project.id, body.threadId, body.threadKey))) {
    throw new ApiError(
      'not_found',
      'This thread was not found, or its threadKey is wrong: send the X-Thread-Key its first answer gave, or leave threadId out to start a new thread.',
    );
  }
  return { id: body.threadId, key: undefined, row: undefined };
}

/** How one version of the operation answers: its wire format and its rate limit. */
export interface MessageOperation {
  protocol: AnswerProtocol;
  /** Takes one message from the limits, or throws 429. */
  limit(): Promise<void>;
  /** Who asked, for the caller stats. */
  caller: AssistantCaller;
}

/**
 * Answers one assistant message: checks the body, the model and the thread's key, then takes from the
 * limits (so a request that could never be answered costs none, and gets its own refusal even past
 * them), each refusal a common error body; then reads the thread's earlier turns and streams
 * the answer. Text reaches the client as the model writes it; a client that goes away stops the
 * model call. The turn (with its thread, when the message started one) is stored before the finish
 * part is written, so an answer the client saw finish is recorded; a failed turn stores its new
 * thread only. Nothing is written between the limits and the first text.
 */
export async function answerMessage(
  context: AppContext,
  { protocol, limit, caller }: MessageOperation,
  project: ProjectRow,
  body: MessageBody,
  reply: FastifyReply,
) {
  const { config, storage } = context;
  const question = questionOf(body);
  const model = modelOf(context, project);
  const thread = await threadFor(context, project, body);
  await limit();
  reply.header('x-thread-id', thread.id);
  if (thread.key !== undefined) reply.header('x-thread-key', thread.key);
  const history = thread.row ? exchangesOfBody(body) : await threadHistory(storage, thread.id);
  const site = siteOf(project, config);
  const stream = new PassThrough();
  /**
   * Parts written in one turn of the event loop go out together, as one chunk of the response: a
   * model's deltas arrive several to a network read, and each write would be a chunk and a system call.
   */
  let pending: string[] = [];
  const flush = () => {
    if (pending.length > 0 && !stream.destroyed) stream.write(pending.join(''));
    pending = [];
  };
  const write = (text: string) => {
    if (!text) return;
    if (pending.length === 0) setImmediate(flush);
    pending.push(text);
  };
  const stop = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) stop.abort(new Error('The client closed the connection.'));
  });
  reply.code(200).headers(protocol.headers).send(stream);

  const run = async () => {
    let stored = false;
    try {
      await answerTurn({
        model,
        instructions: assistantInstructions(site.name),
        messages: modelMessages(history, body, question),
        tools: {
          storage,
          projectId: project.id,
          pageSize: body.retrievalPageSize ?? 5,
          groups: body.filter?.groups,
        },
        limits: {
          maxSteps: config.assistantMaxSteps,
          maxOutputTokens: config.assistantMaxOutputTokens,
          deadline: Date.now() + config.assistantMaxSeconds * 1000,
        },
        siteUrl: site.siteUrl,
        threadId: thread.id,
        protocol,
        write,
        signal: stop.signal,
        store: async (answer) => {
          await recordTurn(storage, {
            thread: thread.row,
            turn: {
              thread_id: thread.id,
              project_id: project.id,
              query: question,
              // The model's text, which a question can steer into holding a NUL.
              response: storableText(answer.text),
              response_type: answer.resolution === 'clarifying_question' ? 'clarifying_question' : 'answer',
              resolution: answer.resolution === 'unanswered' ? 'unanswered' : 'answered',
              sources: JSON.stringify(answer.cited.map(({ path, title, url }) => ({ path, title, url }))),
              query_category: answer.category,
              current_path: body.currentPath ?? null,
              caller,
            },
          });
          stored = true;
        },
      });
    } catch (error) {
      const message = reportFailure(context, project, error);
      if (!stored) await keepThread(context, project.id, thread.row);
      write(protocol.error(message) + protocol.end());
    } finally {
      flush();
      stream.end();
    }
  };
  void run();
  return reply;
}

/** Stores the thread a failed first turn started, so the key the reader was given still opens it; a failure here is only logged. */
async function keepThread(context: AppContext, projectId: string, thread: AssistantThreadRow | undefined): Promise<void> {
  if (!thread) return;
  try {
    await recordTurn(context.storage, { thread });
  } catch (error) {
    context.logger.error({ err: error, project: projectId, thread: thread.id }, 'storing the thread of a failed assistant turn failed');
  }
}
