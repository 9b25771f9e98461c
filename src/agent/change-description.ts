import type { JobRow } from '../storage/tables/jobs.ts';

/** Title and body of a job's commit and pull request, written from the agent's final summary. */
export interface ChangeDescription {
  title: string;
  body: string;
}

const titleLength = 72;

/**
 * The system prompt asks the model to start its summary with a title line; models do not always
 * comply, so the title falls back to the prompt and is cleaned of Markdown either way.
 */
export function describeChange(summary: string, prompt: string, job: Pick<JobRow, 'id'>): ChangeDescription {
  const lines = summary.split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  const title = shorten(plain(first >= 0 ? lines[first] : '') || `Docs: ${plain(prompt.split('\n')[0])}`);
  const details =
    first >= 0
      ? lines
          .slice(first + 1)
          .join('\n')
          .trim()
      : '';
  const request = prompt
    .trim()
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  const body = [details, `Requested in Quire job ${job.id}:\n\n${request}`].filter(Boolean).join('\n\n');
  return { title, body };
}

/** The pull request body after a follow-up: the earlier description, then what the follow-up did. */
export function appendFollowUp(previousBody: string, change: ChangeDescription): string {
  return `${previousBody}\n\n---\n\n**Follow-up: ${change.title}**\n\n${change.body}`;
}

export function commitMessage(change: ChangeDescription): string {
  return `${change.title}\n\n${change.body}\n`;
}

function plain(line: string): string {
  return line
    .replace(/^\s*(#+|[-*>]|\d+\.)\s*/, '')
    .replace(/[*_`]/g, '')
    .replace(/^(title|pr title|pull request title):\s*/i, '')
    .trim();
}

function shorten(text: string): string {
  return text.length <= titleLength ? text : `${text.slice(0, titleLength - 1).trimEnd()}…`;
}
