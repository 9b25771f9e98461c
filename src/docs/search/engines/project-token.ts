/**
 * A project's id as one word of a full-text index: the hex digits of its UTF-8, after a letter. Ids
 * hold `_` and may hold other characters a tokenizer splits on; hex digits are one token and never
 * collide. The engines index it beside each section, so a match is restricted to the project inside
 * the index instead of after it.
 */
export function projectToken(projectId: string): string {
  return `p${Buffer.from(projectId, 'utf8').toString('hex')}`;
}
