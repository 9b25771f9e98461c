/**
 * The writing thread (Storage.writer, started in connect.ts as a `SqliteReaders` of one thread): opens its own
 * connection to the database file it is given, taking write turns with the serving thread's connection through the
 * shared `turns`, and answers each task with what the named function of the named module returns when called with
 * that connection's storage and the task's arguments (thread-tasks.ts).
 */
import { workerData } from 'node:worker_threads';
import { openSqlite } from './connect.ts';
import { answerTasks } from './thread-tasks.ts';

const { path, turns } = workerData as { path: string; turns: SharedArrayBuffer };
answerTasks(openSqlite({ path, turns, threads: false }));
