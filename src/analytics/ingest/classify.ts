import { isbot } from 'isbot';
import { ClassCode } from '../model/class-codes.ts';
import { Verification } from '../model/verification.ts';
import list from './ai-agents.json' with { type: 'json' };

export type AgentCategory = 'training' | 'search' | 'assistant' | 'coding';

export interface AiAgent {
  token: string;
  vendor: string;
  category: AgentCategory;
}

/** The AI agents Quire recognizes, from `ai-agents.json` (edit that file, not this one). */
export const aiAgents: readonly AiAgent[] = list.agents as AiAgent[];

/** What a user agent is, before the request itself (Markdown or not) is looked at. */
export type AgentKind = 'ai' | 'crawler' | 'library' | 'browser';

/** A view's class; `excluded` views are kept raw and counted nowhere. */
export type ViewClass = 'human' | 'ai' | 'excluded';

const escape = (token: string) => token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const aiPattern = new RegExp(aiAgents.map((agent) => escape(agent.token)).join('|'), 'i');

// HTTP libraries and command-line clients: isbot flags them too, but unlike search crawlers they are
// how coding agents and scripts fetch pages, so a Markdown fetch by one counts as AI (rule 2).
const libraryPattern =
  /^(curl|wget|python-requests|python-urllib|python-httpx|httpx|aiohttp|python\/|go-http-client|node-fetch|node|undici|axios|got|okhttp|java\/|apache-httpclient|libwww-perl|lwp|ruby|faraday|guzzle|php|dart|reqwest|http\.rb|postmanruntime|insomnia|httpie|deno|bun)\b|\b(aiohttp|httpx|undici|node-fetch)\//i;

const cacheLimit = 50_000;
const kinds = new Map<string, AgentKind>();

function kindOf(userAgent: string): AgentKind {
  if (aiPattern.test(userAgent)) return 'ai';
  if (userAgent.trim() === '' || libraryPattern.test(userAgent)) return 'library';
  if (isbot(userAgent)) return 'crawler';
  return 'browser';
}

/** The kind of a user agent, cached: a site sees few distinct agents, so the pattern lists run once each. */
export function agentKind(userAgent: string): AgentKind {
  let kind = kinds.get(userAgent);
  if (kind === undefined) {
    kind = kindOf(userAgent);
    if (kinds.size >= cacheLimit) kinds.clear();
    kinds.set(userAgent, kind);
  }
  return kind;
}

/** Classification in the contract's order: AI agent, Markdown fetch by a non-crawler, other bots, humans. */
export function classify(kind: AgentKind, markdown: boolean): ViewClass {
  if (kind === 'ai') return 'ai';
  if (markdown && kind !== 'crawler') return 'ai';
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
