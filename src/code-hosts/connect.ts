import type { ConnectionKind } from '../storage/tables/accounts.ts';
import type { Config } from '../config/config.ts';
import { identifyGithub } from './github-provider.ts';
import { identifyGitlab } from './gitlab-provider.ts';

/**
 * Checks new credentials with their host before they are stored, and names the account they act
 * as, so a mistyped token is refused at once and listings can tell connections apart.
 */
export function identifyConnection(config: Config, connection: { kind: ConnectionKind; token?: string; installationId?: number }): Promise<string> {
  if (connection.kind === 'gitlab') return identifyGitlab(config, connection.token ?? '');
  return identifyGithub(config, { ...connection, kind: connection.kind });
}
