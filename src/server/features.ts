import { analyticsRoutes } from '../analytics/http/routes.ts';
import { localChangeRoutes } from '../code-hosts/local-routes.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';
import type { FeatureRoutes } from '../http/context.ts';
import { jobRoutes } from '../jobs/routes.ts';

/** Every feature's routes, registered in this order by `buildApp`: the one list of what the API serves. */
export const features: FeatureRoutes[] = [jobRoutes, analyticsRoutes, dashboardRoutes, localChangeRoutes];
