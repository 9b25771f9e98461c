import { describe, expect, it } from 'vitest';
import { agentKind, aiAgentOf } from '../../src/analytics/ingest/agents/agents.ts';
import { classify } from '../../src/analytics/ingest/classify.ts';
import { acceptsMarkdownFirst, normalizePath } from '../../src/analytics/ingest/paths.ts';

/** User agents as these clients send them. */
const aiAgentStrings: Record<string, string> = {
  GPTBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'OAI-SearchBot': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  'ChatGPT-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  ClaudeBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  'Claude-SearchBot': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +Claude-SearchBot@anthropic.com)',
  'Claude-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
  'anthropic-ai': 'Mozilla/5.0 (compatible; anthropic-ai/1.0; +http://www.anthropic.com/bot.html)',
  PerplexityBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  'Perplexity-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
  'Google-CloudVertexBot':
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-CloudVertexBot; +https://cloud.google.com/enterprise-search) Chrome/126.0.6478.126 Safari/537.36',
  Bytespider:
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
  CCBot: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
  Amazonbot:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36',
  'Applebot-Extended':
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot-Extended/0.1; +http://www.apple.com/go/applebot)',
  'meta-externalagent': 'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  'meta-externalfetcher': 'meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  DuckAssistBot: 'DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)',
  'MistralAI-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)',
  'cohere-ai': 'Mozilla/5.0 (compatible; cohere-ai/1.0; +https://cohere.com/)',
  'claude-code': 'claude-code/1.0.61 (external, cli)',
};

const browsers = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
];

const crawlers = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
  'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
  'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
];

const libraries = [
  'curl/8.5.0',
  'Wget/1.21.4',
  'python-requests/2.31.0',
  'Python/3.11 aiohttp/3.9.1',
  'python-httpx/0.27.0',
  'Go-http-client/1.1',
  'axios/1.6.8',
  'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
  'okhttp/4.12.0',
  '',
];

describe('classification', () => {
  it('names the agent a user agent names first, not one its cited address mentions', () => {
    expect(aiAgentOf('Mozilla/5.0 (compatible; CCBot/1.0; +https://openai.com/gptbot)')?.name).toBe('CCBot');
    expect(aiAgentOf('Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)')?.name).toBe('ChatGPT-User');
    expect(aiAgentOf('Mozilla/5.0 (compatible; Applebot-Extended/0.1)')?.name).toBe('Applebot-Extended');
  });

  it('has an entry, with operator and category, for every AI agent the docs promise', () => {
    for (const userAgent of Object.values(aiAgentStrings)) expect(aiAgentOf(userAgent)?.operator, userAgent).toBeTruthy();
  });

  it.each(Object.entries(aiAgentStrings))('counts %s as AI', (token, userAgent) => {
    expect(userAgent.toLowerCase()).toContain(token.toLowerCase());
    expect(classify(agentKind(userAgent), false)).toBe('ai');
  });

  it.each(browsers)('counts a browser as human: %s', (userAgent) => {
    expect(classify(agentKind(userAgent), false)).toBe('human');
  });

  it.each(crawlers)('excludes a non-AI crawler, even fetching Markdown: %s', (userAgent) => {
    expect(classify(agentKind(userAgent), false)).toBe('excluded');
    expect(classify(agentKind(userAgent), true)).toBe('excluded');
  });

  it.each(libraries)('excludes an HTTP library page fetch but counts its Markdown fetch as AI: "%s"', (userAgent) => {
    expect(classify(agentKind(userAgent), false)).toBe('excluded');
    expect(classify(agentKind(userAgent), true)).toBe('ai');
  });

  it('counts a Markdown fetch by a browser as human, as the contract says (neither a browser nor a known crawler)', () => {
    const markdown = normalizePath('/guides/setup.md')!;
    expect(markdown).toEqual({ path: '/guides/setup', markdown: true });
    expect(classify(agentKind(browsers[0]), markdown.markdown)).toBe('human');
    for (const path of ['/llms.txt', '/llms-full.txt', '/docs/page.mdx']) expect(normalizePath(path)!.markdown, path).toBe(true);
    expect(classify(agentKind(browsers[0]), acceptsMarkdownFirst('text/markdown, text/html;q=0.9'))).toBe('human');
    expect(classify(agentKind('FooBot/1.0 (+https://foo.example/bot)'), true)).toBe('ai');
  });

  it('reads Accept headers by quality', () => {
    expect(acceptsMarkdownFirst('text/markdown')).toBe(true);
    expect(acceptsMarkdownFirst('text/markdown;q=0.9, */*;q=0.1')).toBe(true);
    expect(acceptsMarkdownFirst('text/html,application/xhtml+xml,text/markdown;q=0.9')).toBe(false);
    expect(acceptsMarkdownFirst('text/html;q=0.5, text/markdown;q=0.5')).toBe(false);
    expect(acceptsMarkdownFirst('*/*')).toBe(false);
    expect(acceptsMarkdownFirst(undefined)).toBe(false);
  });

  it('normalizes paths', () => {
    const cases: [string, string | null][] = [
      ['/guides//setup/?utm=1#top', '/guides/setup'],
      ['/', '/'],
      ['//', '/'],
      ['/caf%C3%A9', '/café'],
      ['/guides/setup.md', '/guides/setup'],
      ['/llms.txt', '/llms.txt'],
      ['https://docs.example.com/a/b/', '/a/b'],
      ['/bad%E0%A4%A', null],
      ['relative', null],
    ];
    for (const [raw, expected] of cases) expect(normalizePath(raw)?.path ?? null, raw).toBe(expected);
  });
});
