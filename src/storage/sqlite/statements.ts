import type { StatementSync } from 'node:sqlite';
import type { SqliteStatement } from 'kysely';
import { DatabaseUnavailableError } from '../dialect.ts';

/**
 * `node:sqlite` statements as Kysely's SQLite dialect takes them (it was written for better-sqlite3,
 * which binds an array of parameters), for the process's own connection (connect.ts) and for the
 * reading threads' read-only ones (reader.ts).
 */

/** Prepared statements by SQL text, the oldest dropped past `size`: Quire runs the same few hundred statements. */
export class StatementCache {
  readonly #statements = new Map<string, SqliteStatement>();
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  get(text: string, prepare: () => SqliteStatement): SqliteStatement {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = prepare();
      if (this.#statements.size >= this.#size) this.#statements.delete(this.#statements.keys().next().value as string);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  clear(): void {
    this.#statements.clear();
  }
}

type Parameter = null | number | bigint | string | NodeJS.ArrayBufferView;

export function wrapStatement(statement: StatementSync, onWrite: (() => void) | null): SqliteStatement {
  const reader = statement.columns().length > 0;
  const values = (parameters: ReadonlyArray<unknown>) => (needsConversion(parameters) ? parameters.map(toSqlite) : (parameters as Parameter[]));
  // `finally`: a statement that failed half-way may still have changed rows.
  const execute = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      throw busy(error) ? new DatabaseUnavailableError(error) : error;
    } finally {
      onWrite?.();
    }
  };
  return {
    reader,
    all: (parameters) => execute(() => statement.all(...values(parameters))),
    run: (parameters) => execute(() => statement.run(...values(parameters))),
    iterate: (parameters) => execute(() => statement.iterate(...values(parameters))),
  };
}

/** SQLITE_BUSY or SQLITE_LOCKED (the primary result code, the low byte): another process held the database past busy_timeout. */
export function busy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && [5, 6].includes(code & 0xff);
}

/**
 * Whether any parameter is one SQLite cannot bind as it is. Most statements have none, and the largest
 * (multi-row inserts of thousands of values) are bound as they are instead of copied value by value.
 * A plain loop: `Array.prototype.some` or `map` with a callback cost five times as much per value.
 */
function needsConversion(parameters: ReadonlyArray<unknown>): boolean {
  for (let index = 0; index < parameters.length; index++) {
    const value = parameters[index];
    if (value === undefined || typeof value === 'boolean') return true;
  }
  return false;
}

function toSqlite(value: unknown): Parameter {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as Parameter;
}
