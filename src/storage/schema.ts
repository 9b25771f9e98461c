import type { AccountsTables } from '../accounts/tables.ts';
import type { AnalyticsTables } from '../analytics/model/tables.ts';
import type { DashboardTables } from '../dashboard/tables.ts';
import type { JobsTables } from '../jobs/tables.ts';

interface MigrationsTables {
  quire_migrations: { version: number; name: string; applied_at: number };
}

/** Every table, composed from the features that own them. */
export interface Database extends MigrationsTables, AccountsTables, JobsTables, DashboardTables, AnalyticsTables {}
