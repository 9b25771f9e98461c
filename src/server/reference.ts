import { readFileSync } from 'node:fs';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** Quire's mark: the API reference's logo and every page's favicon. */
export const quireIcon = readFileSync(new URL('./assets/quire.svg', import.meta.url));

/**
 * `policy` with `frame-ancestors 'none'` as its only framing rule: no other site may frame a Quire
 * page and trick a signed-in person into clicking on it.
 */
export function withoutFraming(policy: string): string {
  const directives = policy.split(';').map((directive) => directive.trim());
  return [...directives.filter((directive) => directive && !directive.toLowerCase().startsWith('frame-ancestors')), "frame-ancestors 'none'"].join('; ');
}

/**
 * The reference's own policy, minus `upgrade-insecure-requests`: over plain HTTP at any host other
 * than localhost it made the browser fetch the page's scripts and styles over https, which a Quire
 * served on http does not answer, and the page stayed blank.
 */
function referencePolicy(policy: string): string {
  const kept = policy.split(';').filter((directive) => directive.trim().toLowerCase() !== 'upgrade-insecure-requests');
  return withoutFraming(kept.join(';'));
}

/** The API reference at /docs: Swagger UI reading /openapi.json, under Quire's name and mark. */
export async function registerReference(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: referencePolicy,
    uiConfig: { urls: [{ url: '/openapi.json', name: 'Quire API' }], deepLinking: true },
    logo: { type: 'image/svg+xml', content: quireIcon, href: '/docs', target: '_self' },
    theme: {
      title: 'Quire API reference',
      favicon: [{ filename: 'quire.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: quireIcon }],
    },
  });
}
