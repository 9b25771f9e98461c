import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { newId, randomBase62 } from '../../lib/ids.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { AssistantTurnRow } from '../../storage/tables/assistant.ts';
import { historyBounds, type Exchange } from './conversation.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The client's `fp`, keyed with the project's secret as visitor ids are: equal within the project, meaningless outside it. */
const fingerprint = (project: ProjectRow, fp: string) => createHmac('sha256', project.analytics_secret).update(`assistant-fp:${fp}`).digest('hex');

export interface NewThread {
  id: string;
  /** Shown once, in `X-Thread-Key`; only its hash is stored. */
  key: string;
}

export async function createThread(storage: Storage, project: ProjectRow, fp: string): Promise<NewThread> {
  const thread = { id: `thr_${randomBase62(24)}`, key: `thk_${randomBase62(32)}` };
  await storage.db
    .insertInto('assistant_threads')
    .values({ id: thread.id, project_id: project.id, key_hash: sha256(thread.key), fingerprint: fingerprint(project, fp), created_at: Date.now() })
    .execute();
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

export async function storeTurn(storage: Storage, turn: TurnToStore): Promise<void> {
  await storage.db
    .insertInto('assistant_turns')
    .values({ ...turn, id: newId('trn'), created_at: Date.now() })
    .execute();
}
