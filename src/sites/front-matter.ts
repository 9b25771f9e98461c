import { parse as parseYaml } from 'yaml';
import type { PageFrontMatter } from './site.ts';
import { splitFrontMatter } from './text.ts';

/** The front matter fields Quire reads from a page; a page without (valid) front matter has none of them set. */
export function readFrontMatter(text: string): PageFrontMatter {
  const yaml = splitFrontMatter(text).yaml;
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
    slug: string(fields.slug),
    id: typeof fields.id === 'string' && fields.id !== '' ? fields.id : null,
  };
}
