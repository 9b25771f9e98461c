import { html, type Html } from './html.ts';

/** A unified diff as lines marked by kind (file header, added, removed, hunk) for the `pre.diff` styles. */
export function diffLines(diff: string): Html[] {
  return diff.split('\n').map((line) => {
    const kind =
      line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')
        ? 'file'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : line.startsWith('@@')
              ? 'hunk'
              : '';
    return kind ? html`<span class="${kind}">${line}</span>\n` : html`${line}\n`;
  });
}
