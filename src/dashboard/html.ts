import { escapeHtml } from '../lib/html-escape.ts';

/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is already
 * `Html` (the output of another `html` template), so a page cannot forget to escape a value.
 */
export class Html {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | null | undefined | false | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0];
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1];
  });
  return new Html(text);
}

/** A time as `2026-11-21 09:30 UTC` in a `<time>` element, or a dash. */
export function time(value: number | string | null): Html {
  if (value === null) return html`<span aria-label="never">–</span>`;
  const date = new Date(value);
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** How long ago, in the largest whole unit (`3 min ago`). */
export function age(value: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - value) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}
