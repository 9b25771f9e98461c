import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import type { AppContext } from '../http/context.ts';
import { frameworkErrorHandler, installErrorHandler } from '../http/error-handler.ts';
import { features } from './features.ts';
import { healthRoutes } from './health.ts';
import { jsonBodyParser, refusePrototypeKeys } from '../http/json.ts';
import { installMetrics } from './metrics.ts';
import { validatorCompiler } from '../http/validation.ts';
import { registerReference, withoutFraming } from './reference.ts';
import { rootRoutes } from './root.ts';

export interface AppOptions {
  /** Called for every route as it is added, with its method and full path (the tenancy test walks them all). */
  onRoute?: (route: Pick<RouteOptions, 'method' | 'url'>) => void;
}

/** Assembles the HTTP application: parsers, error handling, OpenAPI, and every feature's routes. */
export async function buildApp(context: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the declared types differ only in pino's newer fields.
    loggerInstance: context.logger as FastifyBaseLogger,
    bodyLimit: context.config.bodyLimitBytes,
    // Fastify turns Node's limit on receiving a request off: a client trickling a body would hold its socket forever.
    // Node reads the limit when it makes the server (Fastify's own option sets it after, which Node's checks ignore),
    // and checks it every `connectionsCheckingInterval`: a quarter of it, so a request ends within 1.25 times it.
    requestTimeout: context.config.requestTimeoutSeconds * 1000,
    http: {
      requestTimeout: context.config.requestTimeoutSeconds * 1000,
      connectionsCheckingInterval: Math.min(30_000, context.config.requestTimeoutSeconds * 250),
    },
    trustProxy: false,
    frameworkErrors: frameworkErrorHandler,
    // One line per request only at debug level: at info, logs say what the service did, not what it was asked.
    logController: new LogController({ disableRequestLogging: context.config.logLevel !== 'debug' && context.config.logLevel !== 'trace' }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  app.setValidatorCompiler(validatorCompiler);
  // Every answer, so HTML pages added later are covered too; the dashboard and the API reference
  // set their own policies after this hook, each with the same framing rule.
  app.addHook('onSend', async (_request, reply) => {
    const policy = reply.getHeader('content-security-policy');
    reply.header('content-security-policy', withoutFraming(typeof policy === 'string' ? policy : ''));
    reply.header('x-frame-options', 'DENY');
    // Served Markdown, text and JSON (a docs page holding <script>, a 404 that repeats the path) is never read as HTML.
    reply.header('x-content-type-options', 'nosniff');
  });
  app.decorateRequest('apiKey', null);
  installErrorHandler(app);
  installMetrics(app, context);

  // An empty body with a JSON content type means "no body" (archive, say), not a parse error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(refusePrototypeKeys));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quire API',
        version: '2',
        description:
          'Agent jobs that edit a documentation repository and open pull requests, and visitor analytics split into human and AI traffic. Errors have the body `{error, code, details?}`.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Admin API key (`quire_…`).' } } },
      security: [{ bearerAuth: [] }],
    },
  });
  await registerReference(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, { context });
  await app.register(rootRoutes);
  for (const feature of features) await app.register(feature, { context });
  return app;
}
