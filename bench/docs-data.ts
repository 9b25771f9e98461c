import type { PageToWrite } from '../src/docs/index/types.ts';
import { random, zipf } from './random.ts';

/** Words of generated docs: common ones first, since zipf() draws low ranks most often. */
const vocabulary = (
  'the to and a of in is you for on with this that your be can it as are by from or use when an set if ' +
  'api key project page search token request response server client deploy build configuration settings ' +
  'webhook event user team role permission analytics visitor agent assistant model repository branch commit ' +
  'pull review check error limit rate quota cache proxy domain certificate database migration backup restore ' +
  'install upgrade version release changelog endpoint header body json yaml markdown navigation group section ' +
  'anchor route sitemap feedback thread citation embedding index query filter score threshold authentication ' +
  'authorization session cookie origin cors timeout retry queue worker job schedule notification email slack ' +
  'github gitlab pipeline environment variable secret rotate encrypt signature verify payload delivery'
).split(' ');

const groups = ['Get started', 'Guides', 'API reference', 'Integrations', 'Administration', 'Pages'];

function sentence(next: () => number, word: () => number, length: number): string {
  return Array.from({ length }, () => vocabulary[word()]).join(' ');
}

/**
 * `count` pages of about five sections each, the same for a given seed: titles and headings of
 * two to four words, bodies of 40 to 120 words drawn with a Zipf distribution, in navigation order.
 */
export function generateDocsPages(count: number, seed = 20260611): PageToWrite[] {
  const next = random(seed);
  const word = zipf(vocabulary.length, next);
  return Array.from({ length: count }, (_, position) => {
    const title = sentence(next, word, 2 + Math.floor(next() * 3));
    const sections = Array.from({ length: 3 + Math.floor(next() * 5) }, (_, ordinal) => {
      const heading = ordinal === 0 ? title : sentence(next, word, 2 + Math.floor(next() * 3));
      const text = sentence(next, word, 40 + Math.floor(next() * 80));
      return { anchor: ordinal === 0 ? '' : `section-${ordinal}`, heading, level: ordinal === 0 ? 1 : 2, markdown: text, text };
    });
    const path = `docs/${groups[position % groups.length]!.toLowerCase().replaceAll(' ', '-')}/page-${position}.mdx`;
    return {
      path,
      route: `/${path.slice(5, -4)}`,
      title,
      description: null,
      keywords: [],
      group: groups[position % groups.length]!,
      position,
      hidden: false,
      markdown: sections.map((section) => `## ${section.heading}\n\n${section.markdown}`).join('\n\n'),
      sections,
      sourceHash: `${seed}:${position}`,
    };
  });
}

/** Varied queries: one to four words, some ending in a prefix, some with punctuation a reader types. */
export function generateDocsQueries(count: number, seed = 7): string[] {
  const next = random(seed);
  const word = zipf(vocabulary.length, next);
  return Array.from({ length: count }, (_, index) => {
    const words = Array.from({ length: 1 + Math.floor(next() * 4) }, () => vocabulary[word()]!);
    if (index % 4 === 1) words[words.length - 1] = words[words.length - 1]!.slice(0, 4);
    const query = words.join(' ');
    return index % 5 === 2 ? `how do I ${query}?` : index % 7 === 3 ? `"${query}"` : query;
  });
}
