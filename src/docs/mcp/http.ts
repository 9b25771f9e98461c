import type { IncomingHttpHeaders } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSearchMcpServer, type SearchMcpServerOptions } from './server.ts';
import { createSessionId, readSessionId } from './session.ts';
import type { McpClientInfo } from './source.ts';

export interface SearchMcpHttpOptions extends Omit<SearchMcpServerOptions, 'client'> {
  /** Signs the session ids that carry the client's name between requests (see session.ts); any secret of the project. */
  sessionKey: string | Buffer;
}

/** One HTTP request to the server, its JSON body already parsed: Fastify's on Quire, the proxy's own at a site's root. */
export interface McpHttpRequest {
  method: string;
  /** The request target (path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface McpHttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Largest request body taken, in bytes: give it as the route's `bodyLimit`, so Fastify answers 413 above it. */
export const searchMcpBodyLimit = 1024 * 1024;

/** Request headers that describe the original body or connection, not the message the transport reads. */
const connectionHeaders = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/**
 * Answers one HTTP request to the search MCP server: streamable HTTP, stateless, JSON responses.
 * Each request gets its own server and transport, so any process of a fleet can answer it. GET and
 * DELETE are 405, as the spec allows a server without an SSE stream or sessions to terminate.
 */
export function answerSearchMcp(request: McpHttpRequest, options: SearchMcpHttpOptions): Promise<McpHttpAnswer> {
  return answerMcp(request, options.sessionKey, (client) => createSearchMcpServer({ ...options, client }));
}

/**
 * Answers one HTTP request to an MCP server made by `create` (the search server, the admin server):
 * stateless streamable HTTP with JSON responses, the client's name carried in a signed session id.
 */
export async function answerMcp(
  request: McpHttpRequest,
  sessionKey: string | Buffer,
  create: (client: McpClientInfo | undefined) => McpServer,
): Promise<McpHttpAnswer> {
  if (request.method !== 'POST') {
    return jsonRpcError(405, -32000, 'Method not allowed: this server takes POST only (no SSE stream, no session to end).', { allow: 'POST' });
  }
  // A JSON-RPC batch would carry up to a hundred calls through one request, which the rate limits count once
  // (MCP's 2025-06-18 revision dropped batching; no client Quire knows sends one).
  if (Array.isArray(request.body)) {
    return jsonRpcError(400, -32600, 'Invalid request: JSON-RPC batches are not accepted; send one message per request.');
  }
  const sessionId = request.headers['mcp-session-id'];
  const client = typeof sessionId === 'string' ? readSessionId(sessionId, sessionKey) : undefined;
  if (typeof sessionId === 'string' && client === undefined) {
    // The spec's answer to an unknown session: the client starts a new one with initialize.
    return jsonRpcError(404, -32001, 'Session not found: send initialize to start a new session.');
  }
  const server = create(client);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(toWebRequest(request), { parsedBody: request.body });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    // Only a request that held initialize knows the client from the server itself.
    const initialized = server.server.getClientVersion();
    if (initialized) headers['mcp-session-id'] = createSessionId(initialized, sessionKey);
    return { status: response.status, headers, body: await response.text() };
  } finally {
    await server.close();
  }
}

/**
 * The server on a Fastify route: the route gives Fastify's parsed JSON body (its `bodyLimit` bounds
 * it); the reply goes through Fastify, so its hooks and the analytics see it like any other.
 */
export async function handleSearchMcpRequest(request: FastifyRequest, reply: FastifyReply, options: SearchMcpHttpOptions): Promise<FastifyReply> {
  const answer = await answerSearchMcp({ method: request.method, url: request.url, headers: request.headers, body: request.body }, options);
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

function toWebRequest(request: McpHttpRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || connectionHeaders.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers });
}

/** A JSON-RPC error answer, under the HTTP status the transport rules give it. */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): McpHttpAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
  };
}
