import { keysOfStems, stemsOf } from './text.ts';

export type EvidenceSource = 'unanswered' | 'searches' | 'feedback' | 'notFound';
export type GapKind = 'missing' | 'unclear' | 'broken';
export type VisitorClass = 'human' | 'ai' | null;

/** Evidence counts by source. */
export interface EvidenceCounts {
  unanswered: number;
  searches: number;
  feedback: number;
  notFound: number;
}

/** One failure (or several alike) as grouping reads it. */
export interface EvidenceItem {
  source: EvidenceSource;
  /** What was asked or said: a query, a question, a comment; null for a 404 or a bare thumbs down. */
  text: string | null;
  /** The page concerned: the feedback's page, the 404's path; null otherwise. */
  path: string | null;
  /** Who sent it: any stable number (dense visitor ids, or ids given to assistant fingerprints); null when unknown. */
  visitor: number | null;
  visitorClass: VisitorClass;
  /** For an item that stands for several senders (a query's or a path's failures), their ids by class, instead of `visitor`. */
  senders?: { human: readonly ArrayLike<number>[]; ai: readonly ArrayLike<number>[]; other: readonly ArrayLike<number>[] };
  /** How many events this item stands for. */
  count: number;
  first: number;
  last: number;
}

/** A group of evidence: what a gap shows, before its stored status is joined. */
export interface GapGroup {
  /** The keys the group was formed on (stemmed texts `w:`/`c:`, pages `p:`, 404 paths `n:`), sorted. */
  keys: string[];
  kind: GapKind;
  title: string;
  evidence: EvidenceCounts;
  visitors: { human: number; ai: number; total: number };
  examples: string[];
  paths: string[];
  firstSeenAt: number;
  lastSeenAt: number;
}

const maxExamples = 5;
const maxPaths = 10;

/** Union-find over item indexes. */
class Components {
  private readonly parent: number[];
  constructor(size: number) {
    this.parent = Array.from({ length: size }, (_, index) => index);
  }
  find(index: number): number {
    let root = index;
    while (this.parent[root] !== root) root = this.parent[root]!;
    while (this.parent[index] !== root) {
      const next = this.parent[index]!;
      this.parent[index] = root;
      index = next;
    }
    return root;
  }
  join(a: number, b: number): void {
    const [rootA, rootB] = [this.find(a), this.find(b)];
    if (rootA !== rootB) this.parent[Math.max(rootA, rootB)] = Math.min(rootA, rootB);
  }
}

/** A text's stems and grouping keys (see text.ts), and the keys that name a gap (without the fuzzy ones), sorted. */
interface TextKeys {
  stems: readonly string[];
  keys: string[];
  /** `keys` as numbers (see `keyIds`). */
  ids: Int32Array;
  naming: string[];
}

interface Unit {
  keys: string[];
  ids: Int32Array;
  /** The keys that name a gap (`keys` without the fuzzy ones), sorted. */
  naming: string[];
  /** The stems of a text unit; none for a page or a 404. */
  stems: readonly string[];
  items: EvidenceItem[];
}

const noStems: readonly string[] = [];

/**
 * The unit an item is grouped as, and the unit's keys. Queries and unanswered questions by their text; a
 * feedback comment by its text when that text meets a question's, otherwise with its page (as a thumbs
 * down without one); a 404 by its path, apart from the page's other evidence, since the fix differs.
 * Items of one unit always share a gap, so keys are computed once per unit, not once per item.
 */
function unitOf(item: EvidenceItem, keysOf: (text: string) => TextKeys, askedKeys: ReadonlySet<string>): { kind: 'n' | 't' | 'p'; unit: string } {
  if (item.source === 'notFound') return { kind: 'n', unit: item.path ?? '' };
  const text = item.text ?? '';
  if (item.source !== 'feedback' || (text && keysOf(text).keys.some((key) => askedKeys.has(key)))) return { kind: 't', unit: text };
  return { kind: 'p', unit: item.path ?? '' };
}

/** The keys of a page (`p:`) or a 404 path (`n:`) unit. */
function pathKeys(kind: 'n' | 'p', path: string): TextKeys {
  const keys = [`${kind}:${path}`];
  return { stems: noStems, keys, ids: Int32Array.of(keyId(keys[0]!)), naming: keys };
}

/** The shortest start or end of a word that can name a text asked alone (`flurkarte` in `flurkartenauszug`, `einkommen` in `haushaltseinkommen`); shorter parts meet unrelated words. */
const minAnchorLength = 5;

/**
 * Joins each text to the gap of a text it names that was asked alone: a text of one word (stem) names a
 * topic ("vornamen", "timeout"); a longer text holding that word ("vornamen liste", "alkis berlin"), or a
 * word that starts or ends with it (the compounds "lärmkarte", "haushaltseinkommen"), joins its gap. Of
 * several such words the longest wins, then the most asked, then the first alphabetically, so a text joins one
 * topic and topics are not chained through texts that name two. Deterministic: the anchors depend on
 * the set of texts, not their order.
 */
function joinAnchors(list: readonly Unit[], components: Components): void {
  const anchors = new Map<string, { index: number; count: number }>();
  list.forEach((unit, index) => {
    if (unit.stems.length === 0 || unit.stems.some((stem) => stem !== unit.stems[0])) return;
    const count = unit.items.reduce((sum, item) => sum + item.count, 0);
    const found = anchors.get(unit.stems[0]!);
    if (found) found.count += count;
    else anchors.set(unit.stems[0]!, { index, count });
  });
  if (anchors.size === 0) return;
  list.forEach((unit, index) => {
    let best: { stem: string; index: number; count: number } | undefined;
    const consider = (stem: string) => {
      const anchor = anchors.get(stem);
      if (!anchor) return;
      if (
        !best ||
        stem.length > best.stem.length ||
        (stem.length === best.stem.length && (anchor.count > best.count || (anchor.count === best.count && stem < best.stem)))
      )
        best = { stem, ...anchor };
    };
    const distinct = new Set(unit.stems);
    for (const stem of distinct) {
      if (distinct.size > 1) consider(stem);
      for (let length = minAnchorLength; length < stem.length; length++) {
        consider(stem.slice(0, length));
        consider(stem.slice(stem.length - length));
      }
    }
    if (best) components.join(index, best.index);
  });
}

/** Storable keys: the fuzzy `d:` keys only join texts, they do not name a gap. */
const namingKey = (key: string) => !key.startsWith('d:');

/** Each text's grouping keys, kept across lists (the keys depend on the text alone): the list's texts are mostly the same from one read to the next. */
const keyCache = new Map<string, TextKeys>();
const maxCachedTexts = 200_000;

/**
 * A number for each key, kept with the texts' keys: grouping finds the first unit of each key in an
 * array indexed by these numbers rather than a map of the key strings (about 90,000 keys for the bench's
 * 8,500 units, most of them the fuzzy `d:` ones). Emptied with `keyCache`, and only between lists.
 */
const keyIds = new Map<string, number>();
function keyId(key: string): number {
  let id = keyIds.get(key);
  if (id === undefined) keyIds.set(key, (id = keyIds.size));
  return id;
}

/**
 * Groups evidence into gaps, deterministically (the same items in any order give the same groups):
 * two items share a gap exactly when a chain of shared keys, or of texts naming a text asked alone,
 * joins them (see `keysOfStems` and `joinAnchors`).
 */
export function groupEvidence(items: readonly EvidenceItem[]): GapGroup[] {
  // Bounded: a flood of distinct texts costs stemming again, never memory (beyond one list's texts).
  if (keyCache.size >= maxCachedTexts || keyIds.size >= 16 * maxCachedTexts) {
    keyCache.clear();
    keyIds.clear();
  }
  const keysOf = (text: string) => {
    let keys = keyCache.get(text);
    if (keys === undefined) {
      const stems = stemsOf(text);
      const all = keysOfStems(stems);
      keyCache.set(text, (keys = { stems, keys: all, ids: Int32Array.from(all, keyId), naming: [...new Set(all.filter(namingKey))].sort() }));
    }
    return keys;
  };
  // Only a comment's keys are ever looked up among the asked texts' keys (see unitOf): the keys the two
  // share are enough, and far fewer than every asked text's keys.
  const commentKeys = new Set<string>();
  for (const item of items) if (item.text && item.source === 'feedback') for (const key of keysOf(item.text).keys) commentKeys.add(key);
  const askedKeys = new Set<string>();
  if (commentKeys.size > 0) {
    const asked = new Set<string>();
    for (const item of items) if (item.text && (item.source === 'searches' || item.source === 'unanswered')) asked.add(item.text);
    for (const text of asked) for (const key of keysOf(text).keys) if (commentKeys.has(key)) askedKeys.add(key);
  }
  const units = { n: new Map<string, Unit>(), t: new Map<string, Unit>(), p: new Map<string, Unit>() };
  for (const item of items) {
    const { kind, unit } = unitOf(item, keysOf, askedKeys);
    const found = units[kind].get(unit);
    if (found) found.items.push(item);
    else units[kind].set(unit, { ...(kind === 't' ? keysOf(unit) : pathKeys(kind, unit)), items: [item] });
  }
  const list = [...units.n.values(), ...units.t.values(), ...units.p.values()].filter((unit) => unit.keys.length > 0);
  const components = new Components(list.length);
  const owner = new Int32Array(keyIds.size).fill(-1);
  list.forEach((unit, index) => {
    for (const id of unit.ids) {
      const first = owner[id]!;
      if (first < 0) owner[id] = index;
      else components.join(first, index);
    }
  });
  joinAnchors(list, components);
  const members = new Map<number, number[]>();
  list.forEach((_, index) => {
    const root = components.find(index);
    const found = members.get(root);
    if (found) found.push(index);
    else members.set(root, [index]);
  });
  const visitors = new DistinctVisitors();
  return [...members.values()].map((indexes) =>
    indexes.length === 1
      ? summarize(list[indexes[0]!]!.items, list[indexes[0]!]!.naming, visitors)
      : summarize(
          indexes.flatMap((index) => list[index]!.items),
          [...new Set(indexes.flatMap((index) => list[index]!.naming))].sort(),
          visitors,
        ),
  );
}

/**
 * Distinct visitors of one group after another, by class: a visitor's stamp is the group's number and
 * the classes seen (bit 1 human, bit 2 AI), so nothing is cleared between groups and no set is built
 * (as exact-counts.ts counts a path's visitors). Ids below zero (assistant fingerprints) are few and
 * kept in sets.
 */
class DistinctVisitors {
  private stamp = new Uint32Array(1024);
  private base = 0;
  private readonly negative = { human: new Set<number>(), ai: new Set<number>(), all: new Set<number>() };
  human = 0;
  ai = 0;
  total = 0;

  begin(): void {
    this.base += 4;
    this.human = this.ai = this.total = 0;
    if (this.negative.all.size > 0) for (const set of Object.values(this.negative)) set.clear();
  }

  /** Adds a visitor seen as `bit`: 1 human, 2 AI, 0 of unknown class. */
  add(visitor: number, bit: 0 | 1 | 2): void {
    if (visitor < 0 || !Number.isInteger(visitor) || visitor > 0x3fffffff) {
      this.negative.all.add(visitor);
      if (bit === 1) this.negative.human.add(visitor);
      else if (bit === 2) this.negative.ai.add(visitor);
      return;
    }
    if (visitor >= this.stamp.length) {
      const grown = new Uint32Array(Math.max(visitor + 1, this.stamp.length * 2));
      grown.set(this.stamp);
      this.stamp = grown;
    }
    const mark = this.stamp[visitor]!;
    if (mark < this.base) {
      this.stamp[visitor] = this.base | bit;
      this.total++;
    } else if ((mark & bit) === bit) return;
    else this.stamp[visitor] = mark | bit;
    if (bit === 1) this.human++;
    else if (bit === 2) this.ai++;
  }

  counts(): { human: number; ai: number; total: number } {
    return { human: this.human + this.negative.human.size, ai: this.ai + this.negative.ai.size, total: this.total + this.negative.all.size };
  }
}

const classBit = (visitorClass: VisitorClass): 0 | 1 | 2 => (visitorClass === 'human' ? 1 : visitorClass === 'ai' ? 2 : 0);

/** Texts that differ only in case, spacing or punctuation are one example, shown in one (the smallest) of their spellings. */
const spellingCache = new Map<string, string>();
function sameSpelling(text: string): string {
  let same = spellingCache.get(text);
  if (same === undefined) {
    if (spellingCache.size >= maxCachedTexts) spellingCache.clear();
    same = text
      .toLowerCase()
      .replace(/[\s\p{P}]+/gu, ' ')
      .trim();
    spellingCache.set(text, same);
  }
  return same;
}

/** Adds an item's senders to the distinct visitors of its group. */
function addSenders(item: EvidenceItem, visitors: DistinctVisitors): void {
  if (item.visitor !== null) visitors.add(item.visitor, classBit(item.visitorClass));
  if (item.senders) {
    for (const part of item.senders.human) for (let index = 0; index < part.length; index++) visitors.add(part[index]!, 1);
    for (const part of item.senders.ai) for (let index = 0; index < part.length; index++) visitors.add(part[index]!, 2);
    for (const part of item.senders.other) for (let index = 0; index < part.length; index++) visitors.add(part[index]!, 0);
  }
}

/** A group's figures, from its items and its naming keys (sorted, distinct). */
function summarize(items: EvidenceItem[], keys: string[], visitors: DistinctVisitors): GapGroup {
  const evidence: EvidenceCounts = { unanswered: 0, searches: 0, feedback: 0, notFound: 0 };
  visitors.begin();
  if (items.length === 1) {
    // Most groups are one text or one path: the same figures without ranking anything.
    const item = items[0]!;
    evidence[item.source] += item.count;
    addSenders(item, visitors);
    const text = item.text?.trim();
    return figures(keys, evidence, visitors, text ? [text] : [], item.path ? [item.path] : [], item.first, Math.max(0, item.last));
  }
  const sameTexts = new Map<string, number>();
  const spellings = new Map<string, string>();
  const paths = new Map<string, number>();
  let firstSeenAt = Number.POSITIVE_INFINITY;
  let lastSeenAt = 0;
  for (const item of items) {
    evidence[item.source] += item.count;
    addSenders(item, visitors);
    const text = item.text?.trim();
    if (text) {
      const same = sameSpelling(text);
      const shown = spellings.get(same);
      if (shown === undefined || text < shown) spellings.set(same, text);
      sameTexts.set(same, (sameTexts.get(same) ?? 0) + item.count);
    }
    if (item.path) paths.set(item.path, (paths.get(item.path) ?? 0) + item.count);
    firstSeenAt = Math.min(firstSeenAt, item.first);
    lastSeenAt = Math.max(lastSeenAt, item.last);
  }
  // Most frequent first; among equals a text of several words (readable) and then the shorter.
  const words = (text: string) => (text.includes(' ') ? 0 : 1);
  const ranked = (counts: Map<string, number>) =>
    [...counts]
      .sort((a, b) => b[1] - a[1] || words(a[0]) - words(b[0]) || a[0].length - b[0].length || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([value]) => value);
  const examples = ranked(new Map([...sameTexts].map(([same, count]) => [spellings.get(same)!, count])));
  return figures(keys, evidence, visitors, examples, ranked(paths), firstSeenAt, lastSeenAt);
}

function figures(
  keys: string[],
  evidence: EvidenceCounts,
  visitors: DistinctVisitors,
  examples: string[],
  pathList: string[],
  firstSeenAt: number,
  lastSeenAt: number,
): GapGroup {
  const kind: GapKind = evidence.notFound > 0 ? 'broken' : evidence.feedback > 0 ? 'unclear' : 'missing';
  return {
    keys,
    kind,
    title: titleOf(kind, examples[0], pathList[0]),
    evidence,
    visitors: visitors.counts(),
    examples: kind === 'broken' ? pathList.slice(0, maxExamples) : examples.slice(0, maxExamples),
    paths: pathList.slice(0, maxPaths),
    firstSeenAt,
    lastSeenAt,
  };
}

const quoted = (text: string) => `“${text.length > 80 ? `${text.slice(0, 79)}…` : text}”`;

/** A title a person reads, from the most frequent text or page. */
function titleOf(kind: GapKind, text: string | undefined, path: string | undefined): string {
  if (kind === 'broken') return `${path} is not found (404)`;
  if (text === undefined) return `Readers find ${path} not helpful`;
  return kind === 'unclear' ? `Readers fail on ${quoted(text)}${path ? ` (${path})` : ''}` : `No answer for ${quoted(text)}`;
}
