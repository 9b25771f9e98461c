import { stemmer } from 'stemmer';
import { stopWords } from '../search/stop-words.ts';

/** Words of a question that say nothing about what was asked ("how do I …", "docs for …"). */
const askingWords: ReadonlySet<string> = new Set([
  'doc',
  'docs',
  'documentation',
  'guide',
  'tutorial',
  'example',
  'examples',
  'please',
  'help',
  'use',
  'using',
]);
/**
 * German function words (articles, pronouns, prepositions, conjunctions; from the Snowball German
 * list, folded as texts are), dropped as the English ones are: docs sites in German are searched
 * with them ("Liste der häufigen Vornamen").
 */
const germanStopWords: ReadonlySet<string> = new Set(
  (
    'aber als am an auch auf aus bei bin bis da dass dem den der des die dies diese dieser dieses durch ein eine einem ' +
    'einen einer eines er es fur hat im ich ihr in ist mit nach nicht noch oder sie sind so uber um und uns von vom vor ' +
    'war wie wir zu zum zur'
  ).split(' '),
);
/** Longer texts are cut here: a pasted stack trace is still one question. */
const maxWords = 12;
/** Shorter compact keys match too much at one edit (`api` and `app`). */
const minFuzzyLength = 8;

/**
 * What a query, an unanswered question or a comment asks, as grouping keys of its stems (`stemsOf`):
 * texts that share a key belong to one gap. Words are letters and digits, lower-cased with accents folded (NFKD, `ß` as `ss`);
 * years (`2019`, not `429`), stop words and asking words go unless nothing else is left; each word is
 * reduced to its Porter stem. The keys:
 * - `w:` the distinct stems sorted (`"limits rate"` and `"rate limit"`);
 * - `c:` the stems joined in order with nothing between (`"rate limits"` and `"ratelimit"`);
 * - `d:` each one-letter deletion of a long `c:` key, so texts one typo apart meet (`"authentification"`).
 * Deterministic and explainable: two texts are together exactly when a chain of shared keys joins them
 * (or one names a text asked alone: see `joinAnchors` in group.ts).
 */
export function keysOfStems(stems: readonly string[]): string[] {
  if (stems.length === 0) return [];
  const compact = stems.join('');
  const keys = [`w:${[...new Set(stems)].sort().join(' ')}`, `c:${compact}`];
  if (compact.length >= minFuzzyLength) {
    keys.push(`d:${compact}`);
    for (let index = 0; index < compact.length; index += 1) keys.push(`d:${compact.slice(0, index)}${compact.slice(index + 1)}`);
  }
  return [...new Set(keys)];
}

const meaningless = (word: string) => stopWords.has(word) || germanStopWords.has(word) || askingWords.has(word) || /^(19|20)\d\d$/.test(word);

/** The stems of a text's meaningful words, in order. */
export function stemsOf(text: string): string[] {
  const words = (
    text
      .toWellFormed()
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replaceAll('ß', 'ss')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((word) => word.length <= 40);
  const meaningful = words.filter((word) => !meaningless(word));
  return (meaningful.length > 0 ? meaningful : words).slice(0, maxWords).map((word) => stemmer(word));
}
