import { readFrontMatter } from './front-matter.ts';
import { linksOf, type PageLink } from './links.ts';
import { checkPage, compileProblem, frontMatterProblems } from './markdown.ts';
import { parseMarkdown } from './mdast.ts';
import { outlineOf, type Heading, type Section } from './sections.ts';
import type { PageFrontMatter, Problem } from './site.ts';
import { splitFrontMatter, withoutExtension } from './text.ts';

/** What Quire reads from one page: for the checks of a change and for a docs index. */
export interface PageAnalysis {
  /** Compile and front matter problems (the page as its framework would build it). */
  problems: Problem[];
  frontMatter: PageFrontMatter;
  /** The front matter's `title`, else the first `#` heading, else the file name. */
  title: string;
  headings: Heading[];
  sections: Section[];
  /** Links and images, for the link checks. */
  links: PageLink[];
}

/**
 * How far a page is checked: `compile` builds it as its framework would (the checks of a change
 * report every compile error); `parse` only parses it, which is all a docs index needs and a
 * fraction of the time, and reports the errors that stop parsing.
 */
export type AnalysisDepth = 'compile' | 'parse';

/**
 * Analyzes a page in the calling thread. A page from a repository can be built to parse slowly:
 * callers that read pages others wrote use `createPageAnalyzer`, which runs this in a worker with a
 * time limit.
 */
export async function analyzePage(path: string, text: string, depth: AnalysisDepth = 'compile'): Promise<PageAnalysis> {
  const frontMatter = readFrontMatter(text);
  const { yaml, yamlLine, body } = splitFrontMatter(text);
  const parsed = parseMarkdown(path, body);
  const problems =
    depth === 'compile'
      ? await checkPage(path, text)
      : [...(yaml === null ? [] : frontMatterProblems(path, yaml, yamlLine)), ...('error' in parsed ? [compileProblem(path, parsed.error)] : [])];
  const fileTitle = withoutExtension(path.slice(path.lastIndexOf('/') + 1));
  if ('error' in parsed) {
    // A page that does not parse keeps its text as one section, so a reader can still find it.
    const title = frontMatter.title ?? fileTitle;
    const markdown = body.trim();
    return { problems, frontMatter, title, headings: [], sections: [{ anchor: '', heading: title, level: 1, markdown, text: markdown }], links: [] };
  }
  const { tree } = parsed;
  const titleOf = (headings: Heading[]) => frontMatter.title ?? (headings.find((heading) => heading.level === 1)?.text || fileTitle);
  const { headings, sections } = outlineOf(tree, body, titleOf);
  return { problems, frontMatter, title: titleOf(headings), headings, sections, links: linksOf(tree) };
}
