import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

/** The dashboard's only static files, read once at start-up: no build step, nothing else served. */
const assets: Record<string, { type: string; body: string }> = {
  'dashboard.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/dashboard.css', import.meta.url), 'utf8') },
  'dashboard.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/dashboard.js', import.meta.url), 'utf8') },
  'passkeys.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/passkeys.js', import.meta.url), 'utf8') },
};

export function assetRoutes(scope: FastifyInstance): void {
  scope.get<{ Params: { name: string } }>('/assets/:name', (request, reply) => {
    const asset = Object.hasOwn(assets, request.params.name) ? assets[request.params.name] : undefined;
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).send(asset.body);
  });
}
