/**
 * One automaton for every pattern of the agent lists (Aho–Corasick), so recognizing a user agent is a
 * single pass over it, linear in its length whatever the number of patterns. A pattern matches
 * ignoring ASCII case, not inside a longer word (a letter or digit next to an edge that is itself a
 * letter or digit means no match: `Spider` is not in `Baiduspider`), and a leading `^` anchors it at
 * the start; a case-sensitive entry's patterns match only with the case they are written in (Exalead's
 * `Exabot` is not Exa's `ExaBot`). Of all matches, the one that starts first wins, since a user agent names its own agent
 * before any address it cites (`CCBot/1.0; +https://openai.com/gptbot` is CCBot); of those starting at
 * the same place, the longest (`Applebot-Extended` over `Applebot`).
 */

interface Pattern {
  length: number;
  anchored: boolean;
  /** Whether the first and last characters are letters or digits, so a word edge is required there. */
  edgeBefore: boolean;
  edgeAfter: boolean;
  /** The pattern as written, when it must match with this case; null when case does not matter. */
  exact: string | null;
  /** Index, in the order given to `compilePatterns`, of the entry the pattern belongs to. */
  entry: number;
}

export interface Matcher {
  /** The entry of the first-starting (then longest) matching pattern, or -1. */
  match(text: string): number;
}

const lower = (code: number) => (code >= 65 && code <= 90 ? code + 32 : code);
const isWordCode = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/** Compiles `patternsOf[entry]` for every entry into one matcher; `caseSensitive[entry]` makes an entry's patterns match only as written. */
export function compilePatterns(patternsOf: readonly (readonly string[])[], caseSensitive: readonly boolean[] = []): Matcher {
  const next: Map<number, number>[] = [new Map()];
  const outputs: number[][] = [[]];
  const patterns: Pattern[] = [];
  patternsOf.forEach((list, entry) => {
    for (const raw of list) {
      const anchored = raw.startsWith('^');
      const text = anchored ? raw.slice(1) : raw;
      if (text.length === 0) continue;
      let state = 0;
      for (let index = 0; index < text.length; index++) {
        const code = lower(text.charCodeAt(index));
        let target = next[state].get(code);
        if (target === undefined) {
          target = next.length;
          next.push(new Map());
          outputs.push([]);
          next[state].set(code, target);
        }
        state = target;
      }
      outputs[state].push(patterns.length);
      patterns.push({
        length: text.length,
        anchored,
        edgeBefore: isWordCode(text.charCodeAt(0)),
        edgeAfter: isWordCode(text.charCodeAt(text.length - 1)),
        exact: caseSensitive[entry] === true ? text : null,
        entry,
      });
    }
  });

  // Failure links, breadth first; each state also reports the patterns its failure chain reports.
  const fail = new Array<number>(next.length).fill(0);
  const queue = [...next[0].values()];
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head];
    for (const [code, target] of next[state]) {
      let fallback = fail[state];
      while (fallback !== 0 && !next[fallback].has(code)) fallback = fail[fallback];
      const candidate = next[fallback].get(code);
      fail[target] = candidate !== undefined && candidate !== target ? candidate : 0;
      outputs[target] = [...outputs[target], ...outputs[fail[target]]];
      queue.push(target);
    }
  }

  return {
    match(text) {
      let state = 0;
      let best = -1;
      let bestStart = 0;
      let bestLength = 0;
      for (let index = 0; index < text.length; index++) {
        const code = lower(text.charCodeAt(index));
        while (state !== 0 && !next[state].has(code)) state = fail[state];
        state = next[state].get(code) ?? 0;
        for (const id of outputs[state]) {
          const pattern = patterns[id];
          const start = index - pattern.length + 1;
          if (best !== -1 && (start > bestStart || (start === bestStart && pattern.length <= bestLength))) continue;
          if (pattern.anchored && start !== 0) continue;
          if (pattern.edgeBefore && start > 0 && isWordCode(text.charCodeAt(start - 1))) continue;
          if (pattern.edgeAfter && index + 1 < text.length && isWordCode(text.charCodeAt(index + 1))) continue;
          if (pattern.exact !== null && !text.startsWith(pattern.exact, start)) continue;
          best = pattern.entry;
          bestStart = start;
          bestLength = pattern.length;
        }
      }
      return best;
    },
  };
}
