import type { RequestFields } from '../capture/request-event.ts';

/** A parsed log line: the requests it records, or why it is skipped. */
export type ParsedLine = { requests: RequestFields[] } | { skip: string };

/** How one log format reads its lines (formats.ts lists them). */
export interface LogFormat {
  /** Parses one line; `state` lets a format remember a header (CloudFront's `#Fields:`). */
  parse(line: string, state: Map<string, unknown>): ParsedLine;
}
