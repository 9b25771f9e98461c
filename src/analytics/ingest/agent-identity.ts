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

/**
 * Views a docs MCP server returned carry this at the end of their user agent, so the raw event keeps
 * that they came through MCP and the agents breakdown can say so (`mcpViews`).
 */
const mcpMarker = ' (via MCP)';

/** Whether a stored user agent is one `mcpUserAgent` made. */
export const isMcpUserAgent = (userAgent: string) => userAgent.endsWith(mcpMarker);

/** The client an MCP request named in `initialize`. */
export interface McpClient {
  name: string;
  version: string;
}

/**
 * The user agent an MCP view is stored with: the request's own when it names a known AI agent;
 * else the client named in `initialize` (`claude-code/2.1.0`), since runtimes and HTTP libraries
 * (`node`, `python-httpx`) say nothing of who asked; else, for a client no list knows,
 * `Quire-MCP-Client/1.0`, which the list (quire-agents.json) counts as an other AI client. The name
 * of an unknown client is left out: it could name a crawler or a library and be counted as one.
 */
export function mcpUserAgent(userAgent: string | undefined, client: McpClient | undefined): string {
  if (userAgent !== undefined && claimsKnownAgent(userAgent)) return `${userAgent}${mcpMarker}`;
  const named = client && `${client.name}/${client.version}`;
  if (named !== undefined && claimsKnownAgent(named)) return `${named}${mcpMarker}`;
  return `Quire-MCP-Client/1.0${mcpMarker}`;
}
