/**
 * A reading thread (see readers.ts): opens its own read-only connection to the database file it is
 * given, and answers each task with what the named function of the named module returns when
 * called with that connection and the task's arguments.
 */
import { workerData } from 'node:worker_threads';
import { openSqliteReader } from './reader.ts';
import { answerTasks } from './thread-tasks.ts';

answerTasks(openSqliteReader((workerData as { path: string }).path));
