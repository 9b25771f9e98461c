import type { DialectProfile } from '../../../storage/dialect.ts';
import type { FullTextIndex } from './engine.ts';
import { postgresFullText } from './postgres.ts';
import { sqliteFullText } from './sqlite.ts';

/** Each database engine's full-text index, looked up by the storage's dialect profile. */
export const fullTextIndexes: Record<DialectProfile['name'], FullTextIndex> = {
  sqlite: sqliteFullText,
  postgres: postgresFullText,
};
