import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { docsLimits } from '../surface/limits.ts';
import { callerCounts, conversationPage, threadWithTurns } from './export-queries.ts';
import { answerMessage } from './message.ts';
import { uiMessageStream } from './protocols.ts';

/** A question asked from the dashboard's playground: the text, and the thread it continues. */
export interface PlaygroundQuestion {
  text: string;
  threadId?: string;
  threadKey?: string;
  /** Who asks, as the widget's `fp`: stored only as a keyed hash. */
  asker: string;
}

/** A stored turn as the dashboard shows it. */
export interface DeskTurn {
  id: string;
  threadId: string;
  at: number;
  query: string;
  response: string;
  responseType: string;
  resolution: string;
  sources: { title: string; url: string }[];
  caller: string;
}

const sourcesOf = (text: string) => (JSON.parse(text) as { title: string; url: string }[]).map(({ title, url }) => ({ title, url }));

/** Bounds a playground question as the message operation bounds a body; the rest of the checks are the operation's own. */
function checkedQuestion(question: unknown): PlaygroundQuestion {
  const given = (question ?? {}) as Record<string, unknown>;
  const text = typeof given.text === 'string' ? given.text.trim() : '';
  if (!text || text.length > 20_000) {
    throw invalidRequest('Type a question of 1 to 20,000 characters.', [{ path: '/text', message: 'must be 1 to 20,000 characters' }]);
  }
  const optional = (name: string) => {
    const value = given[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string' || value.length > 200) throw invalidRequest(`${name} is the text the previous answer gave, at most 200 characters.`);
    return value;
  };
  return { text, threadId: optional('threadId'), threadKey: optional('threadKey'), asker: typeof given.asker === 'string' ? given.asker : 'dashboard' };
}

/**
 * What the dashboard's Assistant tab reads and asks of the assistant, handed to it through the docs
 * reader: the playground streams an answer exactly as the message operation does (the v2 UI message
 * stream, the same limits, the turn stored with the caller `other`), and the tab lists the stored turns.
 */
export function assistantDesk(storage: Storage) {
  return {
    ask(context: AppContext, project: ProjectRow, question: unknown, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      const { text, threadId, threadKey, asker } = checkedQuestion(question);
      const limits = docsLimits(context);
      const body = { fp: asker, messages: [{ role: 'user' as const, parts: [{ type: 'text', text }] }], threadId, threadKey };
      return answerMessage(
        context,
        { protocol: uiMessageStream, limit: () => limits.assistant(project, request, reply), caller: 'other' },
        project,
        body,
        reply,
      );
    },

    async conversations(projectId: string, options: { unanswered: boolean; limit: number; cursor?: string }) {
      const page = await conversationPage(storage, {
        projectId,
        from: 0,
        to: Date.now() + 1,
        limit: options.limit,
        cursor: options.cursor,
        resolution: options.unanswered ? 'unanswered' : undefined,
      });
      const turns: DeskTurn[] = page.rows.map((row) => ({
        id: row.id,
        threadId: row.thread_id,
        at: row.created_at,
        query: row.query,
        response: row.response,
        responseType: row.response_type,
        resolution: row.resolution,
        sources: sourcesOf(row.sources),
        caller: row.caller,
      }));
      return { turns, nextCursor: page.nextCursor };
    },

    async thread(projectId: string, threadId: string): Promise<{ id: string; createdAt: number; turns: DeskTurn[] } | null> {
      const found = await threadWithTurns(storage, projectId, threadId);
      if (!found) return null;
      const turns = found.turns.map((turn) => ({
        id: turn.id,
        threadId,
        at: turn.created_at,
        query: turn.query,
        response: turn.response,
        responseType: turn.response_type,
        resolution: turn.resolution,
        sources: sourcesOf(turn.sources),
        caller: turn.caller,
      }));
      return { id: found.thread.id, createdAt: found.thread.created_at, turns };
    },

    callers: (projectId: string, from: number, to: number) => callerCounts(storage, projectId, from, to),
  };
}

export type AssistantDesk = ReturnType<typeof assistantDesk>;
