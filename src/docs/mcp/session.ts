import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { McpClientInfo } from './source.ts';

/**
 * The search MCP server runs stateless, so any process of a fleet can answer any request; yet the
 * analytics attributes each call to the client that named itself in `initialize`. The answer to
 * `initialize` therefore carries an `Mcp-Session-Id` that holds that client's name and version,
 * signed with a server-side key, and clients send it back on every later request (the spec asks
 * them to). Nothing is stored. The signature does not make the name trustworthy (any client may
 * call itself anything in `initialize`); it makes the id one the server issued, of a bounded size,
 * so an arbitrary header cannot inject text into the analytics. A random part keeps ids unique.
 */

const version = 'v1';
const maxNameCharacters = 100;
const maxVersionCharacters = 50;

export function createSessionId(client: McpClientInfo, key: string | Buffer): string {
  const payload = Buffer.from(
    JSON.stringify({
      name: client.name.slice(0, maxNameCharacters),
      version: client.version.slice(0, maxVersionCharacters),
      nonce: randomBytes(9).toString('base64url'),
    }),
  ).toString('base64url');
  return `${version}.${payload}.${signature(payload, key)}`;
}

/** The client a session id names, or undefined when the id is not one this key signed. */
export function readSessionId(sessionId: string, key: string | Buffer): McpClientInfo | undefined {
  const [prefix, payload, signed, ...rest] = sessionId.split('.');
  if (prefix !== version || payload === undefined || signed === undefined || rest.length > 0) return undefined;
  const expected = Buffer.from(signature(payload, key));
  const given = Buffer.from(signed);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const { name, version: clientVersion } = JSON.parse(Buffer.from(payload, 'base64url').toString()) as McpClientInfo;
  return { name, version: clientVersion };
}

function signature(payload: string, key: string | Buffer): string {
  // The purpose is in the message so that a key shared with another use signs nothing that use would accept.
  return createHmac('sha256', key).update(`quire-mcp-session.${payload}`).digest('base64url');
}
