import type { Kysely } from 'kysely';
import { parseModel } from '../config/model-name.ts';
import type { AppContext } from '../http/context.ts';
import { conflict, invalidRequest } from '../http/errors.ts';
import { refNameProblem } from '../lib/ref-name.ts';
import type { Database } from '../storage/schema.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';

/** What a create request may choose for its job besides the prompt; each defaults to the project's. */
export interface CreateOptions {
  /** Branch or ref the job starts from (default: the project's ref, else the default branch). */
  ref?: string;
  /** The work branch (default `quire/<job id>`): a valid git branch name no other job of the project uses. */
  branch?: string;
  /** Open the pull request as draft (default false, or QUIRE_PULL_REQUEST_DRAFT). */
  draft?: boolean;
  /** `provider:model`, or a model id, among the project's model and QUIRE_ALLOWED_MODELS. */
  model?: string;
}

/** The names checkable without the repository: `ref` and `branch` as git names (400 otherwise). */
export function checkRefNames(options: CreateOptions): void {
  for (const field of ['ref', 'branch'] as const) {
    const value = options[field];
    if (value === undefined) continue;
    const problem = refNameProblem(value);
    if (problem) throw invalidRequest(`${field} is not a valid git branch name: it ${problem}.`, [{ path: `/${field}`, message: problem }]);
  }
}

/**
 * The `provider:model` a job uses: the project's model, or the requested one when the operator allows
 * it for the project (the project's model and QUIRE_ALLOWED_MODELS). A bare model id matches the allowed
 * model of that id. Anything else is 400, listing what may be chosen.
 */
export function chooseModel(context: AppContext, projectModel: string, requested: string | undefined): string {
  if (requested === undefined) return projectModel;
  const allowed = [...new Set([projectModel, ...context.config.allowedModels])];
  const matches = requested.includes(':')
    ? allowed.filter((model) => model === requested)
    : allowed.filter((model) => {
        const choice = parseModel(model);
        return !('problem' in choice) && choice.modelId === requested;
      });
  if (matches.length === 1) return matches[0];
  const choices = allowed.join(', ');
  const message =
    matches.length > 1
      ? `model "${requested}" is offered by several providers (${matches.join(', ')}); name one as provider:model.`
      : `model "${requested}" is not allowed for this project; choose one of ${choices} (the operator adds models with QUIRE_ALLOWED_MODELS).`;
  throw invalidRequest(message, [{ path: '/model', message: 'not an allowed model' }]);
}

/** 409 when another job of the project already works on `branch`. */
export async function checkBranchUnused(trx: Kysely<Database>, project: ProjectRow, branch: string): Promise<void> {
  const owner = await trx.selectFrom('jobs').select('id').where('project_id', '=', project.id).where('branch', '=', branch).executeTakeFirst();
  if (owner) throw conflict(`Branch ${branch} is already the work branch of job ${owner.id}; choose another branch name, or send that job a follow-up.`);
}
