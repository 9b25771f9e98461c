import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSearchMcpServer, type SearchMcpServerOptions } from './server.ts';
import { createSessionId, readSessionId } from './session.ts';

export interface SearchMcpHttpOptions extends Omit<SearchMcpServerOptions, 'client'> {
  /** Signs the session ids that carry the client's name between requests (see session.ts); any secret of the project. */
  sessionKey: string | Buffer;
}

/** Largest request body taken, in bytes: give it as the route's `bodyLimit`, so Fastify answers 413 above it. */
export const searchMcpBodyLimit = 1024 * 1024;

/** Request headers that describe the original body or connection, not the message the transport reads. */
const connectionHeaders = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/**
 * Answers one HTTP request to the search MCP server: streamable HTTP, stateless, JSON responses.
 * Each request gets its own server and transport, so any process of a fleet can answer it. The
 * route gives Fastify's parsed JSON body (its `bodyLimit` bounds it); the reply goes through Fastify,
 * so its hooks and the analytics see it like any other. GET and DELETE are 405, as the spec allows
 * a server without an SSE stream or sessions to terminate.
 */
export async function handleSearchMcpRequest(request: FastifyRequest, reply: FastifyReply, options: SearchMcpHttpOptions): Promise<FastifyReply> {
  if (request.method !== 'POST') {
    return reply
      .code(405)
      .header('allow', 'POST')
      .send(jsonRpcError(-32000, 'Method not allowed: this server takes POST only (no SSE stream, no session to end).'));
  }
  const sessionId = request.headers['mcp-session-id'];
  const client = typeof sessionId === 'string' ? readSessionId(sessionId, options.sessionKey) : undefined;
  if (typeof sessionId === 'string' && client === undefined) {
    // The spec's answer to an unknown session: the client starts a new one with initialize.
    return reply.code(404).send(jsonRpcError(-32001, 'Session not found: send initialize to start a new session.'));
  }
  const server = createSearchMcpServer({ ...options, client });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(toWebRequest(request), { parsedBody: request.body });
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    // Only a request that held initialize knows the client from the server itself.
    const initialized = server.server.getClientVersion();
    if (initialized) reply.header('mcp-session-id', createSessionId(initialized, options.sessionKey));
    return reply.send(await response.text());
  } finally {
    await server.close();
  }
}

function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || connectionHeaders.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers });
}

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
