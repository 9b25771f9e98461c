import { ClassCode } from '../model/class-codes.ts';
import { MarkdownRequest } from '../model/markdown-request.ts';
import { Verification } from '../model/verification.ts';
import { acceptsMarkdownFirst } from './paths.ts';
import { agentKind, type AgentKind } from './agents/agents.ts';

/** A view's class; `excluded` views are kept raw and counted nowhere. */
export type ViewClass = 'human' | 'ai' | 'excluded';

/**
 * Classification in the contract's order: a known AI agent; a Markdown fetch by a client that is
 * neither a browser nor a known non-AI crawler; any other bot, crawler or library; humans. The
 * category of an AI view comes from `aiViewAgent` (agents/agents.ts), which follows the same order.
 */
export function classify(kind: AgentKind, markdown: boolean): ViewClass {
  if (kind === 'ai') return 'ai';
  if (markdown && (kind === 'library' || kind === 'bot')) return 'ai';
  if (kind !== 'browser') return 'excluded';
  return 'human';
}

/**
 * How a request asked for Markdown, decided once at ingestion and stored: by its path (`.md`,
 * `llms.txt`) or an Accept header ranking `text/markdown` above `text/html`; the latter from a
 * browser's user agent is marked, since no browser asks that way.
 */
export function markdownRequest(markdownPath: boolean, accept: string | undefined, userAgent: string): MarkdownRequest {
  if (acceptsMarkdownFirst(accept)) return agentKind(userAgent) === 'browser' ? MarkdownRequest.byBrowserAgent : MarkdownRequest.asked;
  return markdownPath ? MarkdownRequest.asked : MarkdownRequest.none;
}

/** What the client of a view is: a browser's user agent that asked for Markdown first is a client that is not a browser, an unknown bot. */
function viewAgentKind(userAgent: string, markdown: MarkdownRequest): AgentKind {
  const kind = agentKind(userAgent);
  return kind === 'browser' && markdown === MarkdownRequest.byBrowserAgent ? 'bot' : kind;
}

/** Only successful and redirected requests are views (and events that do not say). */
export function countsAsView(status: number | null): boolean {
  return status === null || (status >= 200 && status < 400);
}

/**
 * The class a stored event is counted under, or null when it counts nowhere (an excluded client, a
 * status that is not a view, or a spoofed claim to be a known agent). Ingestion, partial-day queries
 * and rebuilds all decide here.
 */
export function countedClass(userAgent: string, markdown: MarkdownRequest, status: number | null, verification: Verification): ClassCode | null {
  if (!countsAsView(status) || verification === Verification.spoofed) return null;
  const viewClass = classify(viewAgentKind(userAgent, markdown), markdown !== MarkdownRequest.none);
  return viewClass === 'excluded' ? null : ClassCode[viewClass];
}
