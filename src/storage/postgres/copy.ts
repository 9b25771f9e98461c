import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * `COPY … FROM STDIN` through Kysely's query interface, which has no way to stream: a statement of
 * that form carries its data, in COPY's text format, as its one parameter. PostgreSQL loads rows
 * this way at a fraction of the cost of an INSERT that unpacks arrays.
 */
export function isCopyIn(text: string): boolean {
  return text.startsWith('copy ') && text.endsWith(' from stdin');
}

export async function copyIn(client: pg.PoolClient, text: string, data: string): Promise<{ rows: never[]; command: string; rowCount: number }> {
  const stream = client.query(copyFrom(text));
  await pipeline(Readable.from([data]), stream);
  return { rows: [], command: 'COPY', rowCount: stream.rowCount };
}

/** A value as COPY's text format writes it: `\N` for null, and the four characters that format reserves escaped. */
export function copyValue(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  let escaped = '';
  let from = 0;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    const replacement = code === 92 ? '\\\\' : code === 9 ? '\\t' : code === 10 ? '\\n' : code === 13 ? '\\r' : null;
    if (replacement === null) continue;
    escaped += value.slice(from, index) + replacement;
    from = index + 1;
  }
  return from === 0 ? value : escaped + value.slice(from);
}
