import type { Storage } from '../../storage/dialect.ts';
import { invalidRequest } from '../../http/errors.ts';

/** A page of conversations continues after the (time, id) of the last row shown, newest first. */
interface Cursor {
  at: number;
  id: string;
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');

function decodeCursor(text: string): Cursor {
  try {
    const [at, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'number' && Number.isSafeInteger(at) && typeof id === 'string') return { at, id };
  } catch {
    // Not JSON: refused below like any other text that is no cursor.
  }
  throw invalidRequest('The cursor is not one this operation gave: pass the nextCursor of the previous page, or leave it out for the first page.', [
    { path: '/cursor', message: 'must be a nextCursor' },
  ]);
}

export interface ConversationQuery {
  projectId: string;
  from: number;
  to: number;
  limit: number;
  cursor?: string;
  /** Only turns of this resolution (the dashboard's unanswered filter); every turn when left out. */
  resolution?: 'answered' | 'unanswered';
}

/** The project's stored turns in the range, newest first, `limit` after the cursor; and the cursor of the next page. */
export async function conversationPage(storage: Storage, query: ConversationQuery) {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  let select = storage.db
    .selectFrom('assistant_turns')
    .selectAll()
    .where('project_id', '=', query.projectId)
    .where('created_at', '>=', query.from)
    .where('created_at', '<', query.to);
  if (query.resolution) select = select.where('resolution', '=', query.resolution);
  if (after) select = select.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  const rows = await select
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit + 1)
    .execute();
  const shown = rows.slice(0, query.limit);
  const last = shown.at(-1);
  const hasMore = rows.length > query.limit;
  return { rows: shown, hasMore, nextCursor: hasMore && last ? encodeCursor({ at: last.created_at, id: last.id }) : null };
}

/** The project's thread and its turns, oldest first; null when the project has no such thread. */
export async function threadWithTurns(storage: Storage, projectId: string, threadId: string) {
  const thread = await storage.db
    .selectFrom('assistant_threads')
    .select(['id', 'created_at'])
    .where('id', '=', threadId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  if (!thread) return null;
  const turns = await storage.db
    .selectFrom('assistant_turns')
    .select(['id', 'query', 'response', 'response_type', 'resolution', 'sources', 'caller', 'created_at'])
    .where('thread_id', '=', threadId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { thread, turns };
}

/** Stored turns in the range by caller, each caller present (0 when none). */
export async function callerCounts(storage: Storage, projectId: string, from: number, to: number) {
  const rows = await storage.db
    .selectFrom('assistant_turns')
    .select((eb) => ['caller', eb.fn.countAll<number | string>().as('count')])
    .where('project_id', '=', projectId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy('caller')
    .execute();
  const counts = { web: 0, api: 0, other: 0 };
  for (const row of rows) counts[row.caller as keyof typeof counts] = Number(row.count);
  return { ...counts, total: counts.web + counts.api + counts.other };
}
