import type { FastifyReply } from 'fastify';

/**
 * Sends a body that is already the route's JSON (a cached serialization, say): Fastify passes a
 * string with a JSON content type through without serializing it again.
 */
export function sendSerialized(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
