import { pathKey } from '../../llm/tools/answer.ts';
import type { ToolContext } from './context.ts';

/**
 * Why `content` may not be written to `path`, as the sentence the model gets, or null when it may.
 * The change total is the bytes of every file written in this run, each counted once at its latest
 * size: a cheap running check that tells the model early. The runner measures the whole change
 * against the base with git before it commits (earlier runs included), and that check is the one
 * that decides what is pushed.
 */
export function refuseWrite(context: ToolContext, path: string, content: string): string | null {
  const { agentMaxFileBytes: maxFile, agentMaxChangeBytes: maxChange } = context.limits;
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > maxFile) {
    return `Error: "${path}" would have ${bytes} bytes, more than the ${maxFile} bytes one file may have (QUIRE_AGENT_MAX_FILE_BYTES); nothing was written. Keep the file smaller, for example by splitting it into several pages.`;
  }
  const key = pathKey(path);
  let total = bytes;
  for (const [written, size] of context.written) if (written !== key) total += size;
  if (total > maxChange) {
    return `Error: writing "${path}" would bring the files written by this job to ${total} bytes, more than the ${maxChange} bytes one change may have (QUIRE_AGENT_MAX_CHANGE_BYTES); nothing was written. Write less: shorten the content, or delete files you created that are not needed.`;
  }
  return null;
}

export function recordWrite(context: ToolContext, path: string, content: string): void {
  context.written.set(pathKey(path), Buffer.byteLength(content, 'utf8'));
}

/** After a delete (`to` null) or a move of a file or folder, the written files follow it. */
export function moveWrites(context: ToolContext, from: string, to: string | null): void {
  const source = pathKey(from);
  for (const [written, size] of [...context.written]) {
    if (written !== source && !written.startsWith(`${source}/`)) continue;
    context.written.delete(written);
    if (to !== null) context.written.set(pathKey(to) + written.slice(source.length), size);
  }
}
