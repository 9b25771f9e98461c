import { parse as parseYaml } from 'yaml';
import type { PageFrontMatter } from './site.ts';
import { splitFrontMatter } from './text.ts';

/**
 * Front matter already read, by its YAML text: a docs build reads every page's front matter for the
 * routes and hidden pages (twice on a Docusaurus site, for the doc ids too), and YAML parsing was most
 * of the time an incremental build spent on pages that had not changed. Bounded by count and by
 * characters; the oldest entries leave first, one read again moves to the end.
 */
const known = new Map<string, PageFrontMatter>();
const maxKnown = 50_000;
const maxKnownCharacters = 32 * 1024 * 1024;
let knownCharacters = 0;

const copy = (frontMatter: PageFrontMatter): PageFrontMatter => ({ ...frontMatter, keywords: [...frontMatter.keywords] });

/** The front matter fields Quire reads from a page; a page without (valid) front matter has none of them set. */
export function readFrontMatter(text: string): PageFrontMatter {
  const yaml = splitFrontMatter(text).yaml;
  const seen = yaml ? known.get(yaml) : undefined;
  if (yaml && seen) {
    known.delete(yaml);
    known.set(yaml, seen);
    return copy(seen);
  }
  const frontMatter = parseFrontMatter(yaml);
  if (yaml && yaml.length <= maxKnownCharacters) {
    known.set(yaml, frontMatter);
    knownCharacters += yaml.length;
    for (const oldest of known.keys()) {
      if (known.size <= maxKnown && knownCharacters <= maxKnownCharacters) break;
      known.delete(oldest);
      knownCharacters -= oldest.length;
    }
  }
  return copy(frontMatter);
}

function parseFrontMatter(yaml: string | null): PageFrontMatter {
  let fields: Record<string, unknown> = {};
  try {
    const value = yaml ? (parseYaml(yaml, { logLevel: 'silent' }) as unknown) : null;
    if (value && typeof value === 'object' && !Array.isArray(value)) fields = value as Record<string, unknown>;
  } catch {
    // Invalid front matter is reported by the page checks; the page reads as having none.
  }
  const string = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const keywords = fields.keywords;
  return {
    title: string(fields.title),
    description: string(fields.description),
    keywords: Array.isArray(keywords)
      ? keywords.filter((keyword): keyword is string => typeof keyword === 'string')
      : typeof keywords === 'string'
        ? keywords
            .split(',')
            .map((keyword) => keyword.trim())
            .filter(Boolean)
        : [],
    hidden: fields.hidden === true,
    noindex: fields.noindex === true,
    draft: fields.draft === true,
    unlisted: fields.unlisted === true,
    slug: string(fields.slug),
    id: typeof fields.id === 'string' && fields.id !== '' ? fields.id : null,
  };
}
