import { describe, expect, it } from 'vitest';
import vendored from '../../src/analytics/ingest/agents/ai-robots.json' with { type: 'json' };
import { agentKind, aiAgentOf, aiViewAgent } from '../../src/analytics/ingest/agents/agents.ts';
import { agentCategories, aiAgents, notAiNames } from '../../src/analytics/ingest/agents/load.ts';
import { compilePatterns } from '../../src/analytics/ingest/agents/matcher.ts';
import { classify } from '../../src/analytics/ingest/classify.ts';

/** A user agent in the shape most AI crawlers send: a browser-compatible string naming the agent. */
const realistic = (name: string) =>
  `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${/\/\d/.test(name) ? name : `${name}/1.0`}; +https://example.com/bot) Chrome/126.0.6478.126 Safari/537.36`;

describe('the AI agent list', () => {
  it('recognizes every name of the vendored ai.robots.txt list, or says why it is not AI', () => {
    for (const name of Object.keys(vendored.robots)) {
      const userAgent = realistic(name);
      if (name in notAiNames) expect(agentKind(userAgent), name).not.toBe('ai');
      else expect(aiAgentOf(userAgent), name).not.toBeNull();
    }
  });

  it('gives every agent an operator, a category, patterns and the address of its evidence', () => {
    for (const agent of aiAgents) {
      expect(agent.operator, agent.name).toBeTruthy();
      expect(agentCategories, agent.name).toContain(agent.category);
      expect(agent.patterns.length, agent.name).toBeGreaterThan(0);
      expect(agent.evidence, agent.name).toMatch(/^https?:\/\//);
    }
  });

  it.each([
    ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot', 'assistant'],
    ['Mozilla/5.0 (compatible; PerplexityUser/1.0; +https://perplexity.ai/perplexity-user)', 'assistant'],
    ['Google-NotebookLM', 'assistant'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Safari/537.36 (compatible; Google-Agent)', 'agent'],
    ['Mozilla/5.0 (compatible; GoogleAgent-Mariner/1.0)', 'agent'],
    ['Mozilla/5.0 (compatible; NovaAct/1.0)', 'agent'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/132.0.0.0 Safari/537.36 Manus-User/1.0', 'agent'],
    ['GeminiCLI/0.1.18 (linux; x64)', 'coding'],
    ['claude-cli/1.0.61 (external, cli)', 'coding'],
    ['Aider/0.86.1 +https://aider.chat', 'coding'],
    ['ModelContextProtocol/1.0 (Autonomous; +https://github.com/modelcontextprotocol/servers)', 'coding'],
    ['ModelContextProtocol/1.0 (User-Specified; +https://github.com/modelcontextprotocol/servers)', 'coding'],
    ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot', 'training'],
    ['Mozilla/5.0 (compatible; AzureAI-SearchBot/1.0)', 'search'],
  ])('categorizes %s as %s', (userAgent, category) => {
    expect(aiAgentOf(userAgent)?.category).toBe(category);
  });

  it('never counts a search engine as AI, even fetching Markdown', () => {
    for (const userAgent of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
      'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    ]) {
      expect(classify(agentKind(userAgent), true), userAgent).toBe('excluded');
      expect(aiViewAgent(userAgent, true), userAgent).toBeNull();
    }
  });

  it('attributes a Markdown fetch by a library to coding and by an unknown bot to other', () => {
    expect(aiViewAgent('curl/8.5.0', true)).toEqual({ name: 'curl', operator: 'unknown', category: 'coding' });
    expect(aiViewAgent('python-requests/2.31.0', false)).toBeNull();
    expect(aiViewAgent('FooCrawler/1.0 (+https://foo.example/bot)', true)?.category).toBe('other');
    expect(classify(agentKind('FooCrawler/1.0 (+https://foo.example/bot)'), false)).toBe('excluded');
  });
});

describe('the pattern matcher', () => {
  const matcher = compilePatterns([['Spider'], ['Applebot'], ['Applebot-Extended'], ['^curl/']]);

  it('does not match inside a longer word, and the longest match wins', () => {
    expect(matcher.match('Mozilla/5.0 (compatible; Baiduspider/2.0)')).toBe(-1);
    expect(matcher.match('Spider/1.0')).toBe(0);
    expect(matcher.match('x (Applebot-Extended/0.1)')).toBe(2);
    expect(matcher.match('x (APPLEBOT/0.1)')).toBe(1);
  });

  it('matches a case-sensitive entry only as written, so two vendors whose names differ by case stay apart', () => {
    const byCase = compilePatterns([['ExaBot'], ['Exabot']], [true, true]);
    expect(byCase.match('Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)')).toBe(1);
    expect(byCase.match('ExaBot/1.0 (+https://exa.ai)')).toBe(0);
    expect(byCase.match('EXABOT/1.0')).toBe(-1);
  });

  it('anchors a leading ^ at the start', () => {
    expect(matcher.match('curl/8.5.0')).toBe(3);
    expect(matcher.match('wrapper curl/8.5.0')).toBe(-1);
  });

  it('handles hostile input: long, repetitive, non-ASCII', () => {
    expect(matcher.match(`${'aApplebot-Extende'.repeat(20_000)}x`)).toBe(-1);
    expect(matcher.match('İ'.repeat(1000) + ' Spider/1')).toBe(0);
  });
});
