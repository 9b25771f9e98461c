/**
 * `text` without the `/` characters it ends with. `text.replace(/\/+$/, '')` does the same in time
 * quadratic in the length of a run of slashes that is not at the end (the engine retries the run
 * from each of its slashes), and the texts trimmed here are addresses that users type.
 */
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end--;
  return text.slice(0, end);
}
