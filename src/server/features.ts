import type { FeatureRoutes } from './app.ts';

/** Feature route sets served beside the agent-job API. */
export const features: FeatureRoutes[] = [];
