import type { FastifyPluginAsync } from 'fastify';
import { quireIcon } from './reference.ts';

/** What an API client that opens the bare address learns: where the useful parts are. */
const directory = {
  name: 'Quire',
  message: 'This is the Quire API. Its reference is at /docs and its OpenAPI description at /openapi.json; people sign in at /dashboard.',
  reference: '/docs',
  openapi: '/openapi.json',
  dashboard: '/dashboard',
  health: '/healthz',
};

/** Whether a request prefers a web page to JSON (a browser's Accept lists text/html). */
function wantsPage(accept: string | undefined): boolean {
  return /\btext\/html\b/.test(accept ?? '');
}

/**
 * `/`: a browser goes to the dashboard, an API client gets the directory above. `/favicon.ico` and
 * `/favicon.svg`: Quire's mark, so browser tabs show it and no request for it ends in a 404.
 */
export const rootRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (wantsPage(request.headers.accept)) return reply.redirect('/dashboard', 303);
    return directory;
  });
  for (const path of ['/favicon.ico', '/favicon.svg']) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(quireIcon),
    );
  }
};
