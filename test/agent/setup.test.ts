import { describe, expect, it } from 'vitest';
import { createAgentSetup } from '../../src/agent/setup.ts';
import type { ProjectRow } from '../../src/storage/tables/accounts.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/storage/schema.ts';
import type { Kysely } from 'kysely';
import { testConfig } from '../support/app.ts';

// checkProject reads configuration only; the database is used when a job opens its workspace.
const noDatabase = {} as Kysely<Database>;
const setup = (config: Partial<Config> = {}) => createAgentSetup(testConfig(config), noDatabase);
const project = (fields: Partial<ProjectRow>) => ({ id: 'prj_1', repository: '/srv/docs.git', model: null, ...fields }) as ProjectRow;
const check = (fields: Partial<ProjectRow>, config: Partial<Config> = {}) => setup(config).checkProject(project(fields));

describe('agent setup', () => {
  it('uses the project’s model over QUIRE_MODEL', () => {
    const configured = setup({ model: 'anthropic:claude-sonnet-4-5' });
    expect(configured.modelFor(project({}))).toBe('anthropic:claude-sonnet-4-5');
    expect(configured.modelFor(project({ model: 'openai:gpt-5' }))).toBe('openai:gpt-5');
    expect(setup().modelFor(project({}))).toBeNull();
  });

  it('says which variable to set when configuration is missing', () => {
    expect(check({ repository: null }, { model: 'openai:gpt-5' })).toMatch(/no repository; set one with "quire projects update prj_1 --repository URL"/);
    expect(check({})).toMatch(/no model; set QUIRE_MODEL=provider:model/);
    expect(check({ model: 'gpt-5' })).toMatch(/"gpt-5" is not of the form provider:model/);
    expect(check({ model: 'mistral:large' })).toMatch(/not of the form provider:model/);
    expect(check({ model: 'anthropic:claude-sonnet-4-5' })).toMatch(/needs ANTHROPIC_API_KEY/);
    expect(check({ model: 'openai:gpt-5' })).toMatch(/needs OPENAI_API_KEY/);
    expect(check({ model: 'openai-compatible:llama3.1' })).toMatch(/needs OPENAI_BASE_URL/);
    expect(check({ model: 'openai-compatible:llama3.1' }, { openaiBaseUrl: 'http://127.0.0.1:11434/v1' })).toBeNull();
    expect(check({ model: 'anthropic:claude-sonnet-4-5' }, { anthropicApiKey: 'sk-ant-test' })).toBeNull();
  });

  it('refuses a repository on no known code host', () => {
    expect(check({ model: 'anthropic:claude-sonnet-4-5', repository: 'https://git.example.test/acme/docs' }, { anthropicApiKey: 'sk-ant-test' })).toMatch(
      /set GITHUB_SERVER_URL or GITLAB_URL/,
    );
  });
});
