import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../http/context.ts';

const widget = readFileSync(new URL('./widget.js', import.meta.url), 'utf8');

/**
 * The embeddable assistant: `GET /assistant.js`, a plain script a docs site adds with its project id
 * and assistant key. Its address carries no version, so a day's cache bounds how long an upgrade
 * takes to reach readers while sparing the server a request per page view.
 */
export const assistantWidgetRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app) => {
  app.get(
    '/assistant.js',
    { schema: { tags: ['Discovery'], summary: 'Embeddable assistant widget script', security: [], hide: true } },
    async (_request, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=86400, stale-while-revalidate=604800')
        .header('x-content-type-options', 'nosniff')
        .send(widget),
  );
};
