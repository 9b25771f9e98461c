/**
 * How a view asked for Markdown, stored in `analytics_events.markdown` so that reclassifying history
 * from raw events decides as ingestion did. `byBrowserAgent`: the Accept header ranked `text/markdown`
 * above `text/html` while the user agent claimed to be a browser. No browser asks that way (opencode's
 * webfetch sends a Chrome user agent with such a header), so the client is not the browser it names.
 */
export const MarkdownRequest = { none: 0, asked: 1, byBrowserAgent: 2 } as const;
export type MarkdownRequest = (typeof MarkdownRequest)[keyof typeof MarkdownRequest];
