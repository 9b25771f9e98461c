import { createProcessor } from '@mdx-js/mdx';
import { extensionOf } from './text.ts';

/** The fields of Markdown syntax tree nodes that page analysis reads. */
export interface MarkdownNode {
  type: string;
  value?: string;
  url?: string;
  depth?: number;
  name?: string | null;
  attributes?: { type: string; name?: string; value?: unknown }[];
  children?: MarkdownNode[];
  position?: { start: { line: number; offset?: number }; end: { line: number; offset?: number } };
}

const processors = { md: createProcessor({ format: 'md' }), mdx: createProcessor({ format: 'mdx' }) };

/** The syntax tree of a page's body (front matter already set aside): `.mdx` as MDX, else Markdown; the parser's error when it does not parse. */
export function parseMarkdown(path: string, body: string): { tree: MarkdownNode } | { error: unknown } {
  const processor = extensionOf(path) === 'mdx' ? processors.mdx : processors.md;
  try {
    return { tree: processor.parse(body) as MarkdownNode };
  } catch (error) {
    return { error };
  }
}
