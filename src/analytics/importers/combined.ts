/**
 * nginx and Apache "combined" (and "common") access-log lines, read by one left-to-right scan: each
 * character is looked at once, so a line costs time linear in its length whatever it holds (no
 * regular expression can backtrack over a cut-off line), and nothing is allocated but the fields.
 *
 * `203.0.113.7 - - [21/Nov/2026:09:30:00 +0100] "GET /guides/setup HTTP/1.1" 200 5120 "referrer" "user agent"`
 */
import type { RequestFields } from '../capture/request-event.ts';

const months: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
const space = 0x20;
const quote = 0x22;
const backslash = 0x5c;

/**
 * Consecutive lines mostly share their hour and offset: the last timestamp's text up to its hour
 * (`21/Nov/2026:09`), its offset (`+0100`) and that hour's start in epoch milliseconds are remembered,
 * so most lines read only their minutes and seconds (a site's log holds hundreds of lines an hour).
 */
let lastHour = '';
let lastZone = '';
let lastHourTime = 0;

function digits(line: string, start: number, count: number): number {
  let value = 0;
  for (let index = start; index < start + count; index++) {
    const digit = line.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** `21/Nov/2026:09:30:00 +0100` (26 characters) as epoch milliseconds, or NaN. */
function stampTime(line: string, start: number): number {
  const minute = digits(line, start + 15, 2);
  const second = digits(line, start + 18, 2);
  if (minute < 0 || minute > 59 || second < 0 || second > 60) return NaN;
  const withinHour = minute * 60_000 + second * 1000;
  if (lastHour !== '' && line.startsWith(lastHour, start) && line.startsWith(lastZone, start + 21)) return lastHourTime + withinHour;
  const day = digits(line, start, 2);
  const month = months[line.slice(start + 3, start + 6)];
  const year = digits(line, start + 7, 4);
  const hour = digits(line, start + 12, 2);
  const sign = line.charCodeAt(start + 21);
  const offsetHours = digits(line, start + 22, 2);
  const offsetMinutes = digits(line, start + 24, 2);
  if (month === undefined || day < 1 || day > 31 || year < 0 || hour < 0 || hour > 23) return NaN;
  if ((sign !== 0x2b && sign !== 0x2d) || offsetHours < 0 || offsetMinutes < 0) return NaN;
  const offset = (sign === 0x2d ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  lastHour = line.slice(start, start + 14);
  lastZone = line.slice(start + 21, start + 26);
  lastHourTime = Date.UTC(year, month, day, hour) - offset;
  return lastHourTime + withinHour;
}

/** The end of a quoted text starting at `start` (just after its opening quote): the index of the closing quote, or -1. */
function closingQuote(line: string, start: number): number {
  for (let index = start; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if (code === backslash) index++;
    else if (code === quote) return index;
  }
  return -1;
}

const unescape = (text: string) => (text.includes('\\') ? text.replace(/\\(.)/g, '$1') : text);
const malformed = (why: string): { skip: string } => ({ skip: `not a combined log line (${why})` });

export function parseCombined(line: string): { skip: string } | RequestFields {
  const ipEnd = line.indexOf(' ');
  if (ipEnd <= 0) return malformed('no client address');
  const open = line.indexOf('[', ipEnd);
  if (open === -1 || line.charCodeAt(open + 27) !== 0x5d /* ] */) return malformed('no [time]');
  const at = stampTime(line, open + 1);
  if (!Number.isFinite(at)) return malformed('invalid time');
  if (line.charCodeAt(open + 28) !== space || line.charCodeAt(open + 29) !== quote) return malformed('no "request"');
  // "METHOD PATH PROTOCOL": the path stops at a space or a quote; backslash escapes stay inside it.
  const methodStart = open + 30;
  const methodEnd = line.indexOf(' ', methodStart);
  const requestEnd = closingQuote(line, methodStart);
  if (requestEnd === -1) return malformed('unterminated "request"');
  if (methodEnd === -1 || methodEnd > requestEnd || methodEnd === methodStart) return malformed('no request path');
  let pathEnd = methodEnd + 1;
  while (pathEnd < requestEnd && line.charCodeAt(pathEnd) !== space) pathEnd += line.charCodeAt(pathEnd) === backslash ? 2 : 1;
  pathEnd = Math.min(pathEnd, requestEnd);
  if (pathEnd === methodEnd + 1) return malformed('no request path');
  const statusStart = requestEnd + 2;
  const status = digits(line, statusStart, 3);
  if (line.charCodeAt(requestEnd + 1) !== space || status < 0 || (line.length > statusStart + 3 && line.charCodeAt(statusStart + 3) !== space)) {
    return malformed('no status');
  }
  const fields: RequestFields = {
    method: line.slice(methodStart, methodEnd),
    path: line.slice(methodEnd + 1, pathEnd),
    at,
    ip: line.slice(0, ipEnd),
    status,
  };
  // Optional ` "referrer" "user agent"` after the size.
  const referrerStart = line.indexOf(' "', statusStart + 3);
  if (referrerStart !== -1) {
    const referrerEnd = closingQuote(line, referrerStart + 2);
    if (referrerEnd !== -1 && line.charCodeAt(referrerEnd + 1) === space && line.charCodeAt(referrerEnd + 2) === quote) {
      const agentEnd = closingQuote(line, referrerEnd + 3);
      if (agentEnd !== -1) {
        fields.referrer = line.slice(referrerStart + 2, referrerEnd);
        fields.userAgent = unescape(line.slice(referrerEnd + 3, agentEnd));
      }
    }
  }
  return fields;
}
