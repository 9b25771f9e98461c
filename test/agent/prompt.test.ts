import { describe, expect, it } from 'vitest';
import { systemPrompt } from '../../src/agent/prompt.ts';

describe("the agent's system prompt", () => {
  it('names the repository without the credentials a job saved before they were refused, so the model provider never sees them', () => {
    const prompt = systemPrompt({ repository: 'https://ci:ghp_storedToken123@github.com/acme/docs', baseBranch: 'main', docsPath: null });
    expect(prompt).toContain('https://github.com/acme/docs (branch main)');
    expect(prompt).not.toContain('ghp_storedToken123');
  });
});
