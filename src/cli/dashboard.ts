import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import { resolveOrganization } from '../accounts/organizations.ts';
import { createSignInLink, signInUrl } from '../accounts/people/sessions.ts';
import { publicUrl } from '../config/config.ts';
import { withStorage } from './database.ts';
import { print } from './output.ts';

export function registerDashboard(program: Command): void {
  const dashboard = topCommand(program, 'dashboard');
  dashboard
    .command('link')
    .description('Print a one-time sign-in link for the dashboard')
    .option('--org <id>', 'organization to sign in to (default: the first one)')
    .option('--json', 'print JSON')
    .action((flags: { org?: string; json?: boolean }) =>
      withStorage(async ({ db }, config) => {
        const organization = await resolveOrganization(db, flags.org);
        const link = await createSignInLink(db, organization.id, config.dashboardLinkMinutes);
        const url = signInUrl(publicUrl(config), link.token);
        print(flags, { url, orgId: organization.id, expiresAt: link.expiresAt.toISOString() }, () =>
          [
            `Open this link to sign in to the dashboard of ${organization.name} (${organization.id}):`,
            url,
            `It works once, until ${link.expiresAt.toISOString()}.`,
          ].join('\n'),
        );
      }),
    );
}
