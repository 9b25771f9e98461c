/**
 * The `headers` of an event: the original request's headers, so a Web Bot Auth signature over them can
 * be checked. Bounded, because every event of a 10,000-event request may carry them.
 */

const maxHeaders = 32;
const maxValueLength = 4096;
const maxTotalLength = 16_384;
const headerName = /^[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/i;

/** Checks an event's `headers` object; throws an Error whose message says what to fix. */
export function requestHeaders(input: unknown): Record<string, string> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('headers must be an object of request header names to values.');
  const entries = Object.entries(input);
  if (entries.length > maxHeaders)
    throw new Error(`headers has ${entries.length} entries; send at most ${maxHeaders} (the signature headers and the ones they cover).`);
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  let total = 0;
  for (const [name, value] of entries) {
    if (!headerName.test(name)) throw new Error(`headers: "${name.slice(0, 64)}" is not an HTTP header name.`);
    if (typeof value !== 'string') throw new Error(`headers: the value of ${name} must be a string.`);
    if (value.length > maxValueLength) throw new Error(`headers: the value of ${name} is longer than ${maxValueLength} characters.`);
    const lower = name.toLowerCase();
    if (Object.hasOwn(headers, lower)) throw new Error(`headers: ${name} is given twice; join repeated values with ", ".`);
    total += name.length + value.length;
    if (total > maxTotalLength) throw new Error(`headers are longer than ${maxTotalLength} characters in all.`);
    headers[lower] = value;
  }
  return headers;
}
