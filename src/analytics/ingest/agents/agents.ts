import { isbot } from 'isbot';
import { aiAgents, crawlers, tools, type AgentCategory, type AiAgent } from './load.ts';
import { compilePatterns } from './matcher.ts';

/**
 * What a user agent is, before the request itself (Markdown or not) is looked at: a known AI agent, a
 * known crawler that is never AI, an HTTP library or developer tool, another bot, or a browser.
 */
export type AgentKind = 'ai' | 'crawler' | 'library' | 'bot' | 'browser';

/** Who an AI view is attributed to. */
export interface AgentIdentity {
  name: string;
  operator: string;
  category: AgentCategory;
}

interface Recognized {
  kind: AgentKind;
  agent: AiAgent | null;
  /** The library or tool's name, for Markdown fetches by one. */
  tool: string | null;
}

// One matcher for all three lists: entries are AI agents, then crawlers, then tools.
const entries = [...aiAgents, ...crawlers, ...tools];
const matcher = compilePatterns(
  entries.map((entry) => entry.patterns),
  entries.map((entry) => entry.caseSensitive === true),
);
const crawlersStart = aiAgents.length;
const toolsStart = crawlersStart + crawlers.length;

function recognize(userAgent: string): Recognized {
  const entry = matcher.match(userAgent);
  if (entry >= 0 && entry < crawlersStart) return { kind: 'ai', agent: aiAgents[entry], tool: null };
  if (entry >= crawlersStart && entry < toolsStart) return { kind: 'crawler', agent: null, tool: null };
  if (entry >= toolsStart) return { kind: 'library', agent: null, tool: tools[entry - toolsStart].name };
  if (userAgent.trim() === '') return { kind: 'library', agent: null, tool: null };
  return { kind: isbot(userAgent) ? 'bot' : 'browser', agent: null, tool: null };
}

const cacheLimit = 50_000;
const cache = new Map<string, Recognized>();

/** Cached: a site sees few distinct user agents, so each is matched once. */
function recognized(userAgent: string): Recognized {
  let result = cache.get(userAgent);
  if (result === undefined) {
    result = recognize(userAgent);
    if (cache.size >= cacheLimit) cache.clear();
    cache.set(userAgent, result);
  }
  return result;
}

export function agentKind(userAgent: string): AgentKind {
  return recognized(userAgent).kind;
}

/** The known AI agent a user agent names, or null. */
export function aiAgentOf(userAgent: string): AgentIdentity | null {
  const { agent } = recognized(userAgent);
  return agent && { name: agent.name, operator: agent.operator, category: agent.category };
}

/**
 * Who an AI view is attributed to: the known agent, or for a Markdown fetch by an unknown client, the
 * library (category coding) or "unknown" (category other). Null when the view is not AI.
 */
export function aiViewAgent(userAgent: string, markdown: boolean): AgentIdentity | null {
  const { kind, tool } = recognized(userAgent);
  if (kind === 'ai') return aiAgentOf(userAgent);
  if (!markdown) return null;
  if (kind === 'library') return { name: tool ?? 'unknown', operator: 'unknown', category: 'coding' };
  if (kind === 'bot') return { name: 'unknown', operator: 'unknown', category: 'other' };
  return null;
}
