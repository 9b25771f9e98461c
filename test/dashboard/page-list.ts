/** What the seeded organization of the width test holds, for building page addresses. */
export interface SeededIds {
  /** A project on GitHub, with jobs, analytics and a docs index. */
  projectId: string;
  /** A project on a local repository, whose job has a change page. */
  localProjectId: string;
  /** A completed job with a long transcript and a pull request. */
  jobId: string;
  /** A failed job. */
  failedJobId: string;
  /** The local project's job, with commits on its branch. */
  localJobId: string;
  keyId: string;
}

export interface DashboardPage {
  /** File name of its screenshots and label in failures. */
  name: string;
  path: (ids: SeededIds) => string;
}

/**
 * Every page of the dashboard that a signed-in owner sees. A new page goes here, and the width test
 * visits it at phone and desktop width (and `npm run screenshots` photographs it).
 */
export const dashboardPages: DashboardPage[] = [
  { name: 'keys', path: () => '/dashboard/keys' },
  { name: 'revoke-key', path: (ids) => `/dashboard/keys/${ids.keyId}/revoke` },
  { name: 'projects', path: () => '/dashboard/projects' },
  { name: 'project-settings', path: (ids) => `/dashboard/projects/${ids.projectId}` },
  { name: 'docs', path: (ids) => `/dashboard/projects/${ids.projectId}/docs?q=configuration` },
  { name: 'assistant', path: (ids) => `/dashboard/projects/${ids.projectId}/assistant` },
  { name: 'jobs', path: (ids) => `/dashboard/projects/${ids.projectId}/jobs` },
  { name: 'job', path: (ids) => `/dashboard/projects/${ids.projectId}/jobs/${ids.jobId}` },
  { name: 'failed-job', path: (ids) => `/dashboard/projects/${ids.projectId}/jobs/${ids.failedJobId}` },
  { name: 'local-jobs', path: (ids) => `/dashboard/projects/${ids.localProjectId}/jobs` },
  { name: 'change', path: (ids) => `/dashboard/changes/${ids.localJobId}` },
  { name: 'analytics', path: (ids) => `/dashboard/projects/${ids.projectId}/analytics` },
  { name: 'analytics-filtered', path: (ids) => `/dashboard/projects/${ids.projectId}/analytics?filter=country%3D%3DUS&compare=previous_period` },
  { name: 'shared-links', path: (ids) => `/dashboard/projects/${ids.projectId}/analytics/shared-links` },
  { name: 'feedback', path: (ids) => `/dashboard/projects/${ids.projectId}/feedback` },
  { name: 'webhooks', path: (ids) => `/dashboard/projects/${ids.projectId}/webhooks` },
  { name: 'connections', path: () => '/dashboard/connections' },
  { name: 'people', path: () => '/dashboard/people' },
  { name: 'account', path: () => '/dashboard/account' },
  { name: 'not-found', path: () => '/dashboard/no-such-page' },
];

/** Pages seen before signing in. */
export const signedOutPages: DashboardPage[] = [{ name: 'sign-in', path: () => '/dashboard/sign-in' }];
