import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FeatureRoutes } from '../http/context.ts';
import type { AppContext } from '../http/context.ts';
import { toApiError } from '../http/error-handler.ts';
import { accountPages } from './pages/account.ts';
import { analyticsPages, sharedPages } from './pages/analytics.ts';
import { sharingPages } from './pages/analytics-sharing.ts';
import { invitationPages } from './pages/invitations.ts';
import { peoplePages } from './pages/people.ts';
import { changePages } from './pages/changes.ts';
import { connectionPages } from './pages/connections.ts';
import { assistantPages } from './pages/assistant.ts';
import { docsPages } from './pages/docs.ts';
import { feedbackPages } from './pages/feedback.ts';
import { gapPages } from './pages/gaps.ts';
import { assetRoutes } from './assets.ts';
import { requireCsrf, requireSession } from './auth.ts';
import { html } from './html.ts';
import { jobPages } from './pages/jobs.ts';
import { keyPages } from './pages/keys.ts';
import { layout, notice, sendPage } from './layout.ts';
import { projectPages } from './pages/projects.ts';
import { signInPages } from './pages/sign-in.ts';
import { deliveryPages } from './pages/webhook-deliveries.ts';
import { webhookPages } from './pages/webhooks.ts';

/**
 * Headers of every dashboard response: no caching (pages show secrets once), no framing, scripts
 * and styles only from the dashboard itself, and no Referer that could carry a sign-in token.
 */
async function securityHeaders(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('cache-control', 'no-store');
  reply.header(
    'content-security-policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
}

function errorPage(context: AppContext) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    const { status, message } = apiError;
    reply.headers(apiError.headers);
    if (status >= 500) context.logger.error({ err: error }, 'dashboard request failed');
    const title =
      status === 404
        ? 'Not found'
        : status === 401
          ? 'Signed out'
          : status === 403
            ? 'Not allowed'
            : status === 429
              ? 'Too many attempts'
              : 'Something is not right';
    const back = request.viewer ? html`<p><a href="/dashboard/keys">Back to the dashboard</a></p>` : html`<p><a href="/dashboard/sign-in">Sign in</a></p>`;
    return sendPage(reply, layout({ title, viewer: request.viewer, body: html`${notice('error', message)}${back}` }), status);
  };
}

/** The dashboard: server-rendered pages under /dashboard, signed in with a passkey, a password or a one-time link. */
export const dashboardRoutes: FeatureRoutes = async (app, { context }) => {
  await app.register(
    async (scope: FastifyInstance) => {
      scope.decorateRequest('viewer', null);
      // Web pages, not API operations: kept out of the OpenAPI document.
      scope.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true };
      });
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
        done(null, new URLSearchParams(body.toString())),
      );
      scope.addHook('onSend', securityHeaders);
      scope.setErrorHandler(errorPage(context));
      scope.setNotFoundHandler((request, reply) =>
        sendPage(
          reply,
          layout({
            title: 'Not found',
            viewer: null,
            body: html`${notice('error', `There is no dashboard page at ${request.url.split('?')[0]}.`)}<p><a href="/dashboard">Go to the dashboard</a></p>`,
          }),
          404,
        ),
      );
      assetRoutes(scope);
      signInPages(scope, context);
      invitationPages(scope, context);
      await scope.register(async (signedIn) => {
        signedIn.addHook('onRequest', requireSession(context));
        signedIn.addHook('preHandler', requireCsrf);
        signedIn.get('/', (_request, reply) => reply.redirect('/dashboard/keys', 303));
        keyPages(signedIn, context);
        projectPages(signedIn, context);
        docsPages(signedIn, context);
        assistantPages(signedIn, context);
        connectionPages(signedIn, context);
        jobPages(signedIn, context);
        analyticsPages(signedIn, context);
        sharingPages(signedIn, context);
        feedbackPages(signedIn, context);
        gapPages(signedIn, context);
        changePages(signedIn, context);
        webhookPages(signedIn, context);
        deliveryPages(signedIn, context);
        peoplePages(signedIn, context);
        accountPages(signedIn, context);
      });
    },
    { prefix: '/dashboard' },
  );
  // Shared analytics links: one read-only page per token, outside the signed-in dashboard.
  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    scope.addHook('onSend', securityHeaders);
    scope.setErrorHandler(errorPage(context));
    sharedPages(scope, context);
  });
};
