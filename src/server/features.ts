import { drainRoutes } from '../analytics/drains/routes.ts';
import { analyticsRoutes } from '../analytics/http/routes.ts';
import { feedbackRoutes } from '../analytics/http/feedback-routes.ts';
import { localChangeRoutes } from '../code-hosts/local-routes.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';
import { assistantRoutes } from '../docs/assistant/routes.ts';
import { assistantWidgetRoutes } from '../docs/assistant/widget-routes.ts';
import { discoveryRoutes } from '../docs/discovery/routes.ts';
import { gapRoutes } from '../docs/gaps/routes.ts';
import { siteSurfaceRoutes } from '../docs/surface/routes.ts';
import { docsIndexRoutes } from '../docs/http/routes.ts';
import type { FeatureRoutes } from '../http/context.ts';
import { jobLiveRoutes } from '../jobs/live-routes.ts';
import { jobRoutes } from '../jobs/routes.ts';
import { webhookRoutes } from '../jobs/webhooks/routes.ts';
import { projectRoutes } from '../projects/routes.ts';

/** Every feature's routes, registered in this order by `buildApp`: the one list of what the API serves. */
export const features: FeatureRoutes[] = [
  jobRoutes,
  jobLiveRoutes,
  webhookRoutes,
  analyticsRoutes,
  feedbackRoutes,
  gapRoutes,
  drainRoutes,
  dashboardRoutes,
  localChangeRoutes,
  projectRoutes,
  discoveryRoutes,
  assistantRoutes,
  assistantWidgetRoutes,
  siteSurfaceRoutes,
  docsIndexRoutes,
];
