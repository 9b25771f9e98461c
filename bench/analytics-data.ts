/**
 * The analytics benchmark dataset, generated deterministically from a seed: views over 90 days in
 * time order, paths with Zipf-like popularity, visitors drawn uniformly (so nearly all of them are
 * seen), about 30% of views by AI agents (AI visitors, plus Markdown fetches by an unknown client). Each AI
 * visitor is one of a dozen agents, and about a quarter of human views come from another site (a few
 * well-known ones and a long tail), both derived from the visitor and view numbers so the random
 * sequence, and with it every other figure, stays as it was.
 */
import { random, zipf } from './random.ts';

export interface DatasetShape {
  views: number;
  days: number;
  paths: number;
  visitors: number;
}

/** The dataset; QUIRE_BENCH_SCALE shrinks views, paths and visitors together. */
export function datasetShape(scale: number): DatasetShape {
  return {
    views: Math.round(10_000_000 * scale),
    days: 90,
    paths: Math.max(50, Math.round(2000 * Math.sqrt(scale))),
    visitors: Math.max(1000, Math.round(1_000_000 * scale)),
  };
}

export const benchStart = Date.UTC(2026, 0, 1);
export const browserAgent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
/** A client that is neither a browser nor a known crawler: its Markdown fetches count as AI (category other). */
const markdownClient = 'Mozilla/5.0 (compatible; DocsReader/1.0; +https://example.org/docs-reader)';
export const aiAgent = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

/** The agents AI visitors are, by token as the agent list names them. */
export const benchAgents = [
  'GPTBot',
  'ClaudeBot',
  'PerplexityBot',
  'OAI-SearchBot',
  'ChatGPT-User',
  'Claude-User',
  'Bytespider',
  'CCBot',
  'Amazonbot',
  'meta-externalagent',
  'Applebot-Extended',
  'DuckAssistBot',
];
/** Referring sites: the first ones as the referrer, the rest as utm_source; then a long tail. */
const knownReferrers = [
  'google.com',
  'news.ycombinator.com',
  'reddit.com',
  'bing.com',
  'github.com',
  'duckduckgo.com',
  'stackoverflow.com',
  'chatgpt.com',
  'perplexity.ai',
  'claude.ai',
];
const utmReferrers = 7;
const tailReferrers = 500;

export interface View {
  at: number;
  path: number;
  visitor: number;
  /** 1 when counted as AI (AI agent, or a Markdown fetch by a client that is no browser). */
  ai: number;
  markdown: boolean;
  /** The referring host of a human view, or null. */
  referrer: string | null;
}

/** A well-mixed hash of the view number (the referrer must not follow the random sequence). */
const mix = (value: number) => Math.imul(value ^ (value >>> 16), 0x45d9f3b) >>> 0;

/** The agent an AI visitor is (skewed: the first agents are the busiest). */
export const agentOfVisitor = (visitor: number) =>
  benchAgents[Math.min(benchAgents.length - 1, Math.floor(Math.sqrt(mix(visitor) % (benchAgents.length * benchAgents.length))))];

function referrerOf(index: number): string | null {
  const hash = mix(index + 1);
  if (hash % 4 !== 0) return null;
  const pick = (hash >>> 2) % 100;
  return pick < 70 ? knownReferrers[pick % knownReferrers.length] : `site-${(hash >>> 9) % tailReferrers}.example.org`;
}

/** Yields the views day by day, each day's in time order; `path(i)` and `visitorId(i)` name them. */
export function* generateViews(shape: DatasetShape, seed = 20261121): Generator<View> {
  const next = random(seed);
  const page = zipf(shape.paths, next);
  const aiVisitors = Math.round(shape.visitors * 0.27);
  const perDay = shape.views / shape.days;
  // A day's views in time order, as a site's traffic arrives (visits are decided in arrival order).
  let today: View[] = [];
  let current = 0;
  const inOrder = () => today.sort((a, b) => a.at - b.at);
  for (let index = 0; index < shape.views; index++) {
    const day = Math.floor(index / perDay);
    if (day !== current) {
      yield* inOrder();
      today = [];
      current = day;
    }
    const path = page();
    const visitor = Math.floor(next() * shape.visitors);
    const markdown = visitor >= aiVisitors && next() < 0.04;
    const ai = visitor < aiVisitors || markdown ? 1 : 0;
    today.push({ at: benchStart + day * 86_400_000 + Math.floor(next() * 86_400_000), path, visitor, ai, markdown, referrer: ai ? null : referrerOf(index) });
  }
  yield* inOrder();
}

/** A visitor's client address: public addresses spread over the whole IPv4 space, so visitors are in many countries. */
export const ipOf = (visitor: number) => {
  const hash = mix(visitor + 7);
  return `${1 + (hash % 223)}.${(hash >>> 8) & 255}.${(hash >>> 16) & 255}.${1 + ((hash >>> 24) % 254)}`;
};

export const pathName = (path: number) => `/docs/page-${path}`;
export const visitorName = (visitor: number) => `v${visitor}`;

/** The agent a view is listed under in the agents breakdown, null for human views. */
export const agentName = (view: View) => (view.ai === 0 ? null : view.markdown ? 'Other client (Markdown fetch)' : agentOfVisitor(view.visitor));

/** The event the ingestion API takes for a view. */
export const userAgentOf = (view: View) => (view.markdown ? markdownClient : view.ai ? aiAgent.replace('GPTBot', agentOfVisitor(view.visitor)) : browserAgent);

export function eventOf(view: View) {
  const path = view.markdown ? `${pathName(view.path)}.md` : pathName(view.path);
  const utm = view.referrer !== null && knownReferrers.indexOf(view.referrer) >= utmReferrers;
  return {
    timestamp: view.at,
    path: utm ? `${path}?utm_source=${view.referrer}` : path,
    visitorId: visitorName(view.visitor),
    // AI agents' views come without an address: a crawler's claim from an address outside its operator's ranges would count as spoofed.
    ip: view.ai && !view.markdown ? undefined : ipOf(view.visitor),
    userAgent: userAgentOf(view),
    referrer: view.referrer !== null && !utm ? `https://www.${view.referrer}/somewhere` : undefined,
  };
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The view as a combined-log line; the visitor becomes an IP address, so imported visitors match. */
export function combinedLine(view: View): string {
  const date = new Date(view.at);
  const two = (value: number) => String(value).padStart(2, '0');
  const stamp = `${two(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
  const ip = `10.${(view.visitor >> 16) & 255}.${(view.visitor >> 8) & 255}.${view.visitor & 255}`;
  const event = eventOf(view);
  return `${ip} - - [${stamp}] "GET ${event.path} HTTP/1.1" 200 1024 "-" "${event.userAgent}"`;
}
