import { describe, expect, it } from 'vitest';
import { createAgentSetup } from '../../src/agent/setup.ts';
import type { ProjectRow } from '../../src/storage/tables/accounts.ts';
import type { Config } from '../../src/server/config.ts';
import { testConfig } from '../support/app.ts';

const project = (fields: Partial<ProjectRow>) => ({ id: 'prj_1', repository: '/srv/docs.git', model: null, ...fields }) as ProjectRow;
const check = (fields: Partial<ProjectRow>, config: Partial<Config> = {}) => createAgentSetup(testConfig(config)).checkProject(project(fields));

describe('agent setup', () => {
  it('uses the project’s model over QUIRE_MODEL', () => {
    const setup = createAgentSetup(testConfig({ model: 'anthropic:claude-sonnet-4-5' }));
    expect(setup.modelFor(project({}))).toBe('anthropic:claude-sonnet-4-5');
    expect(setup.modelFor(project({ model: 'openai:gpt-5' }))).toBe('openai:gpt-5');
    expect(createAgentSetup(testConfig()).modelFor(project({}))).toBeNull();
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

  it('asks for the code host’s credentials when the repository is on GitHub or GitLab', () => {
    const ready = { anthropicApiKey: 'sk-ant-test' };
    const model = 'anthropic:claude-sonnet-4-5';
    expect(check({ model, repository: 'https://github.com/acme/docs' }, ready)).toMatch(/on GitHub; set GITHUB_TOKEN, or GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY/);
    expect(check({ model, repository: 'https://github.com/acme/docs' }, { ...ready, githubToken: 'ghp_test' })).toBeNull();
    expect(check({ model, repository: 'https://gitlab.example.test/acme/docs' }, { ...ready, gitlabUrl: 'https://gitlab.example.test' })).toMatch(/on GitLab; set GITLAB_TOKEN/);
    expect(check({ model, repository: 'https://git.example.test/acme/docs' }, ready)).toMatch(/set GITHUB_SERVER_URL or GITLAB_URL/);
  });
});
