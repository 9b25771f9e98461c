import { agentKind, aiAgentOf } from './agents/agents.ts';
import type { AgentCategory } from './agents/load.ts';

/** Who an AI view came from in the agents breakdown: the agent's name, its operator (null when unknown) and its category. */
export interface AgentIdentity {
  name: string;
  operator: string | null;
  category: AgentCategory;
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
