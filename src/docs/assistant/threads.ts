import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { newId, randomBase62 } from '../../lib/ids.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { AssistantThreadRow, AssistantTurnRow } from '../../storage/tables/assistant.ts';
import { historyBounds, type Exchange } from './conversation.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The client's `fp`, keyed with the project's secret as visitor ids are: equal within the project, meaningless outside it. */
const fingerprint = (project: ProjectRow, fp: string) => createHmac('sha256', project.analytics_secret).update(`assistant-fp:${fp}`).digest('hex');

export interface NewThread {
  id: string;
  /** Shown once, in `X-Thread-Key`; only its hash is stored. */
  key: string;
  /** The row to store, with the thread's first turn (recordTurn). */
  row: AssistantThreadRow;
}

/** A new thread's id, key and row, not yet stored: its first answer stores it (recordTurn). */
export function newThread(project: ProjectRow, fp: string): NewThread {
  const id = `thr_${randomBase62(24)}`;
  const key = `thk_${randomBase62(32)}`;
  return { id, key, row: { id, project_id: project.id, key_hash: sha256(key), fingerprint: fingerprint(project, fp), created_at: Date.now() } };
}

export async function createThread(storage: Storage, project: ProjectRow, fp: string): Promise<NewThread> {
  const thread = newThread(project, fp);
  await recordTurn(storage, { thread: thread.row });
  return thread;
}

/**
 * Whether `key` opens the project's thread `threadId`. A wrong key, another project's thread and no
 * thread at all look the same to the caller (404), so one reader cannot find another's threads.
 */
export async function threadOpens(storage: Storage, projectId: string, threadId: string, key: string | undefined): Promise<boolean> {
  if (!key) return false;
  const row = await storage.db
    .selectFrom('assistant_threads')
    .select('key_hash')
    .where('id', '=', threadId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row !== undefined && timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(sha256(key)));
}

/** The thread's newest turns as exchanges, oldest first (at most historyBounds.turns). */
export async function threadHistory(storage: Storage, threadId: string): Promise<Exchange[]> {
  const rows = await storage.db
    .selectFrom('assistant_turns')
    .select(['query', 'response'])
    .where('thread_id', '=', threadId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(historyBounds.turns)
    .execute();
  return rows.reverse();
}

/** A turn to store: everything but its id and the time, which are given here. */
export type TurnToStore = Omit<AssistantTurnRow, 'id' | 'created_at'>;

/**
 * Stores what one message leaves: the thread when the message started it, and the turn when it was
 * answered (a failed turn stores only its new thread, so the reader can still continue it), together:
 * resolved, it is stored. Each row alone is one statement; a thread with its first turn is one
 * statement too where a WITH clause may insert (PostgreSQL: one round trip instead of a transaction's
 * four, on a pool that the other conversations' searches share), else one transaction.
 */
export async function recordTurn(storage: Storage, { thread, turn }: { thread?: AssistantThreadRow; turn?: TurnToStore }): Promise<void> {
  const { db, profile } = storage;
  const row = turn && { ...turn, id: newId('trn'), created_at: Date.now() };
  if (!row) {
    if (thread) await db.insertInto('assistant_threads').values(thread).execute();
    return;
  }
  if (!thread) await db.insertInto('assistant_turns').values(row).execute();
  else if (profile.modifyingCtes)
    await db
      .with('thread', (start) => start.insertInto('assistant_threads').values(thread))
      .insertInto('assistant_turns')
      .values(row)
      .execute();
  else
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('assistant_threads').values(thread).execute();
      await trx.insertInto('assistant_turns').values(row).execute();
    });
}
