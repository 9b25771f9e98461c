/** Largest tool result the model gets, in characters; longer results are cut and say so. */
export const resultLimit = 60_000;

/** Entries `list_files` returns at most; the rest are counted, with a hint to narrow the listing. */
export const listLimit = 2_000;

/** Matches `search` returns at most; the rest are counted, with a hint to narrow the pattern. */
export const matchLimit = 300;

/** Lines `read_file` returns when the model gives no limit. */
export const defaultLineLimit = 2_000;

/** Cuts `text` to `limit` characters, saying how much was left out. */
export function cap(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[cut: ${text.length - limit} more characters]`;
}
