import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { DatabaseUnavailableError } from '../dialect.ts';
import { copyIn, isCopyIn } from './copy.ts';

/**
 * PostgreSQL: SQLSTATE class 08 (connection exception), too many connections, a server shutting down
 * or starting; the socket's own failures; and node-postgres's messages for a connection it lost.
 */
const postgresStates = /^(?:08...|53300|57P0[1-3])$/;
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH']);
const lostConnection = /^(?:Connection terminated|Client has encountered a connection error|Client was closed)/;

function postgresUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && (postgresStates.test(code) || socketCodes.has(code))) || (typeof message === 'string' && lostConnection.test(message));
}

/**
 * The pool Kysely is given: node-postgres's, with its connection and query failures that mean an
 * outage raised as DatabaseUnavailableError. Failing to get a connection at all is always one.
 */
export function reportingUnavailable(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const rethrow = (error: unknown): never => {
    throw postgresUnavailable(error) ? new DatabaseUnavailableError(error) : error;
  };
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    get processID() {
      return (client as { processID?: number }).processID;
    },
    // Only the (text, parameters) form: the dialect is given no cursor, so Kysely never streams.
    query: ((text: string, parameters: readonly unknown[]) =>
      (isCopyIn(text) ? copyIn(client, text, parameters[0] as string) : client.query(text, [...parameters])).catch(
        rethrow,
      )) as unknown as PostgresPoolClient['query'],
    release: (destroy) => client.release(destroy),
  });
  return {
    options: pool.options,
    async connect() {
      const client = await pool.connect().catch((error: unknown) => {
        throw new DatabaseUnavailableError(error);
      });
      // One wrapper per client: Kysely keeps its connection objects keyed by the client.
      const wrapped = clients.get(client) ?? wrap(client);
      clients.set(client, wrapped);
      return wrapped;
    },
    end: () => pool.end(),
  };
}
