import type { AccountsTables } from './tables/accounts.ts';
import type { AnalyticsTables } from './tables/analytics.ts';
import type { AssistantTables } from './tables/assistant.ts';
import type { DashboardTables } from './tables/dashboard.ts';
import type { DocsBuildsTables } from './tables/docs-builds.ts';
import type { DocsTables } from './tables/docs.ts';
import type { FeedbackTables } from './tables/feedback.ts';
import type { GapsTables } from './tables/gaps.ts';
import type { JobsTables } from './tables/jobs.ts';
import type { WebhooksTables } from './tables/webhooks.ts';
import type { PeopleTables } from './tables/people.ts';

interface MigrationsTables {
  quire_migrations: { version: number; name: string; applied_at: number };
}

/** Every table, composed from the features that own them. */
export interface Database
  extends
    MigrationsTables,
    AccountsTables,
    JobsTables,
    DashboardTables,
    AnalyticsTables,
    FeedbackTables,
    WebhooksTables,
    PeopleTables,
    DocsTables,
    DocsBuildsTables,
    AssistantTables,
    GapsTables {}
