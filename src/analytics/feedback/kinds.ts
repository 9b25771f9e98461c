/**
 * Feedback sources and statuses as the API spells them; the database stores each as its position in
 * these lists, so the order never changes (append only).
 */
export const feedbackSources = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export const feedbackStatuses = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;

export type FeedbackSource = (typeof feedbackSources)[number];
export type FeedbackStatus = (typeof feedbackStatuses)[number];

export const sourceCode = (source: FeedbackSource) => feedbackSources.indexOf(source);
export const statusCode = (status: FeedbackStatus) => feedbackStatuses.indexOf(status);

/**
 * Classes of a search's or feedback's sender (visitor.ts), stored as their position; `excluded` (bots,
 * crawlers, libraries, spoofed agents) is stored but counted nowhere. A row whose event named no user
 * agent has no class (null).
 */
export const interactionClasses = ['human', 'ai', 'excluded'] as const;
export type InteractionClass = (typeof interactionClasses)[number];
export const interactionClassCode = (name: InteractionClass) => interactionClasses.indexOf(name);

/** Longest texts accepted, in UTF-16 code units (what a textarea's `maxlength` counts). Longer: the event is rejected. */
export const feedbackLimits = { comment: 2000, contact: 320, code: 10_000, filename: 512, lang: 64, searchId: 128, rawQuery: 1000 } as const;
/** Normalized queries longer than this are cut here (a pasted stack trace is still one query). */
export const queryLength = 200;

/**
 * Parses a comma list of names (`pending,resolved`) into their codes; undefined when the list is
 * absent; throws a message naming the allowed values otherwise.
 */
export function codeList(value: string | undefined, names: readonly string[], parameter: string): number[] | undefined {
  if (value === undefined || value === '') return undefined;
  const codes = new Set<number>();
  for (const name of value.split(',')) {
    const code = names.indexOf(name.trim());
    if (code === -1) throw new Error(`${parameter} "${name.trim().slice(0, 40)}" is not one of ${names.join(', ')} (a comma list).`);
    codes.add(code);
  }
  return [...codes].sort();
}
