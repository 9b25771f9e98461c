import type { FastifyRequest } from 'fastify';
import { decideDocsAccess, requireDocsKey } from '../../accounts/docs-access.ts';
import { clientAddressResolver } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

/** A function that gives the project a request may read, or throws the error that decideDocsAccess chose. */
export type DocsAuthorizer = (request: FastifyRequest, projectId: string) => Promise<ProjectRow>;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * One access rule for everything that serves docs (discovery search and page, the site surface, the
 * search MCP server): public docs to anyone, else an assistant key from an allowed origin or an admin
 * key with `read` (see accounts/docs-access.ts). The refusals are the common error bodies. With
 * `keyRequired` (the assistant, which spends the team's model budget), public docs do not suffice.
 */
export function docsAuthorizer(context: AppContext, options: { keyRequired?: boolean } = {}): DocsAuthorizer {
  const decide = options.keyRequired ? requireDocsKey : decideDocsAccess;
  const clientAddress = clientAddressResolver(context.config.trustedProxies);
  const dependencies = { storage: context.storage, keys: context.accounts.keys, projects: context.accounts.projects };
  return async (request, projectId) => {
    const access = await decide(
      dependencies,
      { authorization: header(request.headers.authorization), origin: header(request.headers.origin), from: clientAddress(request) },
      projectId,
    );
    if (!access.ok) throw new ApiError(access.code, access.message, { headers: access.headers });
    return access.project;
  };
}
