import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireKey } from '../../../accounts/request-auth.ts';
import type { AppContext } from '../../../http/context.ts';
import { answerMcp } from '../http.ts';
import type { ApiCall } from './analytics-tools.ts';
import { createAdminMcpServer } from './server.ts';

/**
 * `/mcp`: the admin MCP server, streamable HTTP with an admin key as Bearer. Every request is
 * authenticated like an API call (a key revoked mid-session is refused at its next call, 401), and
 * each tool checks the scope it needs. The body limit leaves room for a whole file of the size
 * QUIRE_AGENT_MAX_FILE_BYTES allows, so a larger write gets the tool's own refusal, not a 413.
 */
export async function adminMcpRoutes(app: FastifyInstance, { context }: { context: AppContext }): Promise<void> {
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    bodyLimit: Math.max(1024 * 1024, 3 * context.config.agentMaxFileBytes),
    onRequest: requireKey(context, 'read'),
    schema: { hide: true },
    handler: async (request, reply) => {
      const key = request.apiKey!;
      // The client's name rides in a session id signed for this key alone (see ../session.ts).
      const sessionKey = createHmac('sha256', key.hash).update('quire-admin-mcp-session').digest();
      const answer = await answerMcp({ method: request.method, url: request.url, headers: request.headers, body: request.body }, sessionKey, (client) =>
        createAdminMcpServer({ context, key, client, api: apiAs(request) }),
      );
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    },
  });
}

/** Quire's own API, called with the MCP request's credentials and client address, so its rules apply as they would to the client. */
function apiAs(request: FastifyRequest): ApiCall {
  return async (method, url, payload) => {
    const headers: Record<string, string> = { authorization: request.headers.authorization ?? '' };
    const forwarded = request.headers['x-forwarded-for'];
    if (typeof forwarded === 'string') headers['x-forwarded-for'] = forwarded;
    const response = await request.server.inject({ method, url, headers, payload, remoteAddress: request.socket.remoteAddress });
    return { statusCode: response.statusCode, body: response.body };
  };
}
