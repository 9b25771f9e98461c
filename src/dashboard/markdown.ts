import { micromark } from 'micromark';
import { Html } from './html.ts';

/**
 * Markdown someone else wrote (a pull request body: the model's words, the repository's text) as HTML
 * for a dashboard page, with micromark's safe defaults: raw HTML is shown as text, not markup, and a link
 * or image whose address is not http(s), mailto, irc(s) or xmpp (`javascript:`, `data:`) gets no address.
 * Images are turned off, so the page loads nothing from an address the text chose; `![alt](url)` reads as
 * a link.
 */
export function markdownHtml(markdown: string): Html {
  return new Html(micromark(markdown, { extensions: [{ disable: { null: ['labelStartImage'] } }] }));
}
