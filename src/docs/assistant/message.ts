import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { checkModel, languageModel } from '../../llm/models.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { siteOf } from '../surface/site.ts';
import { exchangesOfBody, modelMessages, questionOf } from './conversation.ts';
import { reportFailure } from './failures.ts';
import { assistantInstructions } from './instructions.ts';
import type { AnswerProtocol } from './protocols.ts';
import type { MessageBody } from './schemas.ts';
import { createThread, storeTurn, threadHistory, threadOpens } from './threads.ts';
import { answerTurn } from './turn.ts';

/** The header the embeddable assistant script sends (`X-Quire-Assistant: web`); an integration names itself with any other value. */
export const callerHeader = 'x-quire-assistant';

export type AssistantCaller = 'web' | 'api' | 'other';

export function callerOf(request: FastifyRequest): AssistantCaller {
  const value = request.headers[callerHeader];
  if (value === undefined) return 'api';
  return value === 'web' ? 'web' : 'other';
}

/** The model that answers: the project's assistant model, else its model, else QUIRE_MODEL; 409 when none is set or the server lacks its key. */
export function assistantModelName(context: AppContext, project: ProjectRow): string | null {
  return project.assistant_model ?? project.model ?? context.config.model ?? null;
}

function modelOf(context: AppContext, project: ProjectRow) {
  const name = assistantModelName(context, project);
  if (!name) {
    throw new ApiError(
      'project_not_configured',
      `Project ${project.id} has no model for the assistant: set the project's assistant model or model, or QUIRE_MODEL on the server.`,
    );
  }
  const problem = checkModel(name, context.config);
  if (problem) throw new ApiError('project_not_configured', problem);
  return languageModel(name, context.config);
}

/** The thread a message continues (its key checked, else 404) or a new one, whose key is sent once. */
async function threadFor(context: AppContext, project: ProjectRow, body: MessageBody, reply: FastifyReply) {
  if (body.threadId === undefined) {
    const thread = await createThread(context.storage, project, body.fp);
    reply.header('x-thread-id', thread.id).header('x-thread-key', thread.key);
    return { id: thread.id, history: exchangesOfBody(body) };
  }
  if (!(await threadOpens(context.storage, project.id, body.threadId, body.threadKey))) {
    throw new ApiError(
      'not_found',
      'This thread was not found, or its threadKey is wrong: send the X-Thread-Key its first answer gave, or leave threadId out to start a new thread.',
    );
  }
  reply.header('x-thread-id', body.threadId);
  return { id: body.threadId, history: await threadHistory(context.storage, body.threadId) };
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
 * Answers one assistant message: checks the body and the model, then takes from the limits (so a
 * request that could never be answered costs none), each refusal a common error body; then streams
 * the answer and stores the turn. Text reaches the client as the model writes it; a client that goes
 * away stops the model call.
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
  await limit();
  const thread = await threadFor(context, project, body, reply);
  const site = siteOf(project, config);
  const stream = new PassThrough();
  const stop = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) stop.abort(new Error('The client closed the connection.'));
  });
  reply.code(200).headers(protocol.headers).send(stream);

  const run = async () => {
    try {
      const answer = await answerTurn({
        model,
        instructions: assistantInstructions(site.name),
        messages: modelMessages(thread.history, body, question),
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
        write: (text) => void (text && !stream.destroyed && stream.write(text)),
        signal: stop.signal,
      });
      await storeTurn(storage, {
        thread_id: thread.id,
        project_id: project.id,
        query: question,
        response: answer.text,
        response_type: answer.resolution === 'clarifying_question' ? 'clarifying_question' : 'answer',
        resolution: answer.resolution === 'unanswered' ? 'unanswered' : 'answered',
        sources: JSON.stringify(answer.cited.map(({ path, title, url }) => ({ path, title, url }))),
        query_category: answer.category,
        current_path: body.currentPath ?? null,
        caller,
      });
    } catch (error) {
      const message = reportFailure(context, project.id, error);
      if (!stream.destroyed) stream.write(protocol.error(message) + protocol.end());
    } finally {
      stream.end();
    }
  };
  void run();
  return reply;
}
