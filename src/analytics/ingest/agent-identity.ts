import { agentKind, aiAgents } from './classify.ts';

/** Categories of AI views, as the contract names them. */
export const agentCategories = ['training', 'search', 'assistant', 'agent', 'coding', 'other'] as const;
export type AgentCategory = (typeof agentCategories)[number];

/** Who an AI view came from: the agent's name, its operator (null when unknown) and its category. */
export interface AgentIdentity {
  name: string;
  operator: string | null;
  category: AgentCategory;
}

const byToken = new Map(aiAgents.map((agent) => [agent.token.toLowerCase(), agent]));
const tokenPattern = new RegExp(aiAgents.map((agent) => agent.token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');

/** The known agent a user agent names, or null; the token that comes first in the user agent wins (`ChatGPT-User/1.0; +https://openai.com/gptbot` is ChatGPT-User). */
function aiAgentOf(userAgent: string): AgentIdentity | null {
  const match = tokenPattern.exec(userAgent);
  const agent = match ? byToken.get(match[0].toLowerCase()) : undefined;
  return agent ? { name: agent.token, operator: agent.vendor, category: agent.category } : null;
}

/** AI views by clients that are not a known agent are Markdown fetches: by HTTP libraries (coding tools) or others. */
const libraryFetch: AgentIdentity = { name: 'HTTP client (Markdown fetch)', operator: null, category: 'coding' };
const otherFetch: AgentIdentity = { name: 'Other client (Markdown fetch)', operator: null, category: 'other' };

const identities = new Map<string, AgentIdentity>();

/** The identity an AI view of `userAgent` is listed under (a function of the user agent alone, so cached). */
export function agentIdentity(userAgent: string): AgentIdentity {
  let identity = identities.get(userAgent);
  if (identity === undefined) {
    identity = aiAgentOf(userAgent) ?? (agentKind(userAgent) === 'library' ? libraryFetch : otherFetch);
    if (identities.size >= 50_000) identities.clear();
    identities.set(userAgent, identity);
  }
  return identity;
}

/** Whether the user agent names a known agent (only those can be verified or spoofed). */
export const claimsKnownAgent = (userAgent: string) => agentKind(userAgent) === 'ai';
