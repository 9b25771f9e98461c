/**
 * Amazon CloudFront standard logs: tab-separated, columns named by the `#Fields:` header. Real files
 * omit trailing columns on some lines (fields added to the format after the line's writer was
 * built), so a line is read whenever the columns a view needs are there: date, time and the path.
 */
import type { LogFormat, ParsedLine } from './log-format.ts';

/** The columns of the format when a file has no `#Fields:` header (the documented order's first twelve). */
const defaultFields = 'date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query'.split(' ');
const needed = ['date', 'time', 'cs-uri-stem'];

interface Columns {
  names: string[];
  index: Map<string, number>;
}

function columnsOf(names: string[]): Columns {
  return { names, index: new Map(names.map((name, position) => [name, position])) };
}

const fallback = columnsOf(defaultFields);

/** CloudFront percent-encodes user agents and referrers, some twice (`%2520`). */
function decode(value: string | undefined): string | undefined {
  if (value === undefined || !value.includes('%')) return value;
  try {
    const once = decodeURIComponent(value);
    return once.includes('%') ? decodeURIComponent(once) : once;
  } catch {
    return value;
  }
}

export const cloudfront: LogFormat = {
  parse(line, state): ParsedLine {
    if (line.startsWith('#Fields:')) {
      state.set('columns', columnsOf(line.slice(8).trim().split(/\s+/)));
      return { skip: 'header line' };
    }
    if (line.startsWith('#')) return { skip: 'header line' };
    const columns = (state.get('columns') as Columns | undefined) ?? fallback;
    const values = line.split('\t');
    const field = (name: string) => {
      const position = columns.index.get(name);
      return position === undefined ? undefined : values[position];
    };
    const missing = needed.filter((name) => {
      const value = field(name);
      return value === undefined || value === '' || value === '-';
    });
    if (missing.length > 0) return { skip: `missing CloudFront fields: ${missing.join(', ')}` };
    const at = Date.parse(`${field('date')}T${field('time')}Z`);
    if (!Number.isFinite(at)) return { skip: 'invalid CloudFront date or time' };
    return {
      requests: [
        {
          method: field('cs-method'),
          path: field('cs-uri-stem'),
          at,
          ip: field('c-ip'),
          userAgent: decode(field('cs(User-Agent)')),
          status: Number(field('sc-status')),
          referrer: decode(field('cs(Referer)')),
          contentType: field('sc-content-type'),
        },
      ],
    };
  },
};
