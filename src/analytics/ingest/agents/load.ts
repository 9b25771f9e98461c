import { createHash } from 'node:crypto';
import vendored from './ai-robots.json' with { type: 'json' };
import crawlerList from './crawlers.json' with { type: 'json' };
import quire from './quire-agents.json' with { type: 'json' };
import toolList from './tools.json' with { type: 'json' };

/** Why an AI agent fetched a page; see quire-agents.json's `about`. */
export type AgentCategory = 'training' | 'search' | 'assistant' | 'agent' | 'coding' | 'other';
export const agentCategories: readonly AgentCategory[] = ['training', 'search', 'assistant', 'agent', 'coding', 'other'];

/** One known AI agent: who runs it, why it fetches, how its user agent is recognized and where that is documented. */
export interface AiAgent {
  name: string;
  operator: string;
  category: AgentCategory;
  patterns: string[];
  /** Whether the patterns match only with the case they are written in, as the vendor writes the name. */
  caseSensitive?: boolean;
  evidence: string;
}

/** A client that is not AI: a crawler (never AI) or an HTTP library or developer tool (AI when it fetches Markdown). */
export interface OtherClient {
  name: string;
  patterns: string[];
  caseSensitive?: boolean;
}

interface RobotsEntry {
  operator: string;
  function: string;
  description: string;
}

type Correction = Partial<Omit<AiAgent, 'patterns'>> & { patterns?: string[] };

const markdownLink = /^\[([^\]]+)\]\((https?:[^)\s]+)\)/;
const firstUrl = /https?:\/\/[^\s)\]"']+/;
const unknownOperator = /^(unclear|unknown)/i;
/** How robots.json says that an entry it lists is, as far as anyone knows, not AI at all. */
const notKnownAi = /not (currently )?known to be artificially intelligent or AI-related/i;

/** Robots.json lists some agents twice, with a version (`iaskspider/2.0`, `Brightbot 1.0`): one agent each. */
const canonicalName = (name: string) => name.replace(/[/ ]\d+(\.\d+)*$/, '');

// Free-text `function` of robots.json to a category; corrections in quire-agents.json win.
function categoryOf(entry: RobotsEntry): AgentCategory {
  const text = entry.function.toLowerCase();
  if (text.includes('coding')) return 'coding';
  if (text === 'ai agents') return 'agent';
  if (/assistant|user[- ]initiated|user prompts|user actions|user queries/.test(text)) return 'assistant';
  if (text.includes('search')) return 'search';
  if (/train|llm|dataset|scrap|learning/.test(text)) return 'training';
  return 'other';
}

function fromRobots(name: string, entry: RobotsEntry): AiAgent {
  const link = markdownLink.exec(entry.operator);
  const operator = link ? link[1] : unknownOperator.test(entry.operator) || entry.operator.length > 40 ? 'unknown' : entry.operator;
  const evidence = link?.[2] ?? firstUrl.exec(`${entry.operator} ${entry.description}`)?.[0] ?? `${vendored.source}`;
  return { name, operator, category: categoryOf(entry), patterns: [name], evidence };
}

const robots = vendored.robots as Record<string, RobotsEntry>;

/** Robots.json names that are not AI: Quire's own list, with its reasons, and those robots.json itself says are not known to be AI-related. */
function buildNotAi(): Record<string, string> {
  const reasons: Record<string, string> = { ...quire.notAi };
  for (const [name, entry] of Object.entries(robots)) {
    if (!(name in reasons) && notKnownAi.test(entry.description)) reasons[name] = `ai.robots.txt: "${notKnownAi.exec(entry.description)![0]}".`;
  }
  return reasons;
}

/** Robots.json names Quire does not count as AI, with the reason; each is recognized by crawlers.json or tools.json instead. */
export const notAiNames: Readonly<Record<string, string>> = buildNotAi();

function buildAgents(): AiAgent[] {
  const corrections = quire.corrections as Record<string, Correction>;
  const notAi = new Set(Object.keys(notAiNames).map((name) => name.toLowerCase()));
  const byName = new Map<string, AiAgent>();
  for (const [listed, entry] of Object.entries(robots)) {
    if (notAi.has(listed.toLowerCase())) continue;
    const name = canonicalName(listed);
    const agent = { ...fromRobots(name, entry), ...corrections[listed], ...corrections[name] };
    const existing = byName.get(name.toLowerCase());
    if (existing) existing.patterns = [...new Set([...existing.patterns, ...agent.patterns])];
    else byName.set(name.toLowerCase(), agent);
  }
  const own = quire.agents as AiAgent[];
  return [...byName.values(), ...own];
}

/** Every AI agent: the vendored ai.robots.txt list, corrected, and Quire's own entries. */
export const aiAgents: readonly AiAgent[] = buildAgents();
/** Known crawlers that are never AI (search engines, SEO tools, monitors, link previewers, feed readers). */
export const crawlers: readonly OtherClient[] = crawlerList.crawlers;
/** HTTP libraries and developer tools: a Markdown fetch by one counts as AI, category coding. */
export const tools: readonly OtherClient[] = toolList.tools;

/**
 * Identifies the classification data: stored day sets record the version they were built with, and
 * a server that finds another one reclassifies history from the raw events (fold/reclassify.ts).
 * `rules` changes when classify.ts decides differently from the same data; `dimensions` when what a
 * rebuild recomputes beside the sets changes (fold/rebuild-dimensions.ts: classes, traits and visits kept on raw events).
 */
const rules = 3;
const dimensions = 1;
export const classificationVersion = `${vendored.commit.slice(0, 12)}-${createHash('sha256')
  .update(JSON.stringify({ rules, dimensions, robots: vendored.robots, quire, crawlerList, toolList }))
  .digest('hex')
  .slice(0, 12)}`;
