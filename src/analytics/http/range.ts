import { invalidRequest } from '../../http/errors.ts';
import { dayMs } from '../model/days.ts';

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

function validDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Parses `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with offset; null when it is neither. */
export function parseBound(value: string): number | null {
  const date = datePattern.exec(value);
  if (date) {
    const [year, month, day] = date.slice(1).map(Number);
    return validDate(year, month, day) ? Date.UTC(year, month - 1, day) : null;
  }
  const time = dateTimePattern.exec(value);
  if (!time) return null;
  const [year, month, day, hour, minute] = time.slice(1, 6).map(Number);
  const second = Number(time[6] ?? 0);
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  const at = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(at) ? at : null;
}

/** The contract's range rules: dateFrom inclusive, dateTo exclusive, defaults now and 7 days before it. */
export function parseRange(query: { dateFrom?: string; dateTo?: string }, now = Date.now()): { from: number; to: number } {
  const problems: { path: string; message: string }[] = [];
  const to = query.dateTo === undefined ? now : parseBound(query.dateTo);
  if (to === null) problems.push({ path: '/dateTo', message: 'must be a date (2026-11-21) or an ISO 8601 date-time with offset (2026-11-21T09:30:00Z)' });
  const from = query.dateFrom === undefined ? (to ?? now) - 7 * dayMs : parseBound(query.dateFrom);
  if (from === null) problems.push({ path: '/dateFrom', message: 'must be a date (2026-11-21) or an ISO 8601 date-time with offset (2026-11-21T09:30:00Z)' });
  if (problems.length > 0) throw invalidRequest(`The querystring is invalid: ${problems[0].path.slice(1)} ${problems[0].message}.`, problems);
  if (from! >= to!)
    throw invalidRequest('dateFrom must be before dateTo (dateTo is exclusive: use the day after the last day you want).', [
      { path: '/dateFrom', message: 'must be before dateTo' },
    ]);
  return { from: from!, to: to! };
}
