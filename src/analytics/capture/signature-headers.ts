/**
 * What of a request's headers is kept with its view: the Web Bot Auth signature and the headers it may
 * cover, only when the request is signed (ingestion verifies it, ../ingest/verify/web-bot-auth.ts).
 * Every other header is dropped, so a recorded request stays within the event's header limits.
 */

/** Request headers as Node gives them: lower-case names, a repeated header as a list. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** Request headers a Web Bot Auth signature may cover. */
const signedHeaders = ['signature', 'signature-input', 'signature-agent', 'host', 'user-agent', 'accept', 'date', 'content-type', 'content-digest'];

/** One header's value, a repeated header's values joined as HTTP joins them. */
export function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The signature headers of a signed request, or undefined for a request that carries no signature. */
export function signatureHeaders(headers: RequestHeaders): Record<string, string> | undefined {
  if (headers['signature'] === undefined) return undefined;
  const kept: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = headerValue(headers, name);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}
