import type { Config } from '../../config/config.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';

/**
 * The model that answers a project's readers, and the setting it comes from: the project's assistant model,
 * else its model, else QUIRE_MODEL. Errors name the setting, so both come from this one choice.
 */
export function assistantModel(config: Config, project: ProjectRow): { name: string | null; setting: string } {
  if (project.assistant_model) return { name: project.assistant_model, setting: "the project's assistant model" };
  if (project.model) return { name: project.model, setting: "the project's model" };
  return { name: config.model ?? null, setting: 'QUIRE_MODEL' };
}
