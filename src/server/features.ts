import { analyticsRoutes } from '../analytics/http/routes.ts';
import { localChangeRoutes } from '../code-hosts/local-routes.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';
import type { FeatureRoutes } from './app.ts';

/** Feature route sets served beside the agent-job API. */
export const features: FeatureRoutes[] = [dashboardRoutes, analyticsRoutes, localChangeRoutes];
