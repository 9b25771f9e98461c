import { ClassCode } from '../model/class-codes.ts';
import { agentKind, type AgentKind } from './agents/agents.ts';
import { Verification } from '../model/verification.ts';

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

/** Only successful and redirected requests are views (and events that do not say). */
export function countsAsView(status: number | null): boolean {
  return status === null || (status >= 200 && status < 400);
}

/**
 * The class a stored event is counted under, or null when it counts nowhere (an excluded client, a
 * status that is not a view, or a spoofed claim to be a known agent). Ingestion, partial-day queries
 * and rebuilds all decide here.
 */
export function countedClass(userAgent: string, markdown: boolean, status: number | null, verification: Verification): ClassCode | null {
  if (!countsAsView(status) || verification === Verification.spoofed) return null;
  const viewClass = classify(agentKind(userAgent), markdown);
  return viewClass === 'excluded' ? null : ClassCode[viewClass];
}
