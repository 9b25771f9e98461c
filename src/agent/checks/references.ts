import { createProcessor } from '@mdx-js/mdx';
import { extensionOf, splitFrontMatter } from './text.ts';

/** A link or image a page makes, as written. */
export interface Reference {
  kind: 'link' | 'image';
  target: string;
  line: number | undefined;
}

interface Node {
  type: string;
  url?: string;
  name?: string | null;
  attributes?: { type: string; name?: string; value?: unknown }[];
  children?: Node[];
  position?: { start: { line: number } };
}

const processors = { md: createProcessor({ format: 'md' }), mdx: createProcessor({ format: 'mdx' }) };

/** Attributes of JSX components that name a page or an image (`<Card href>`, `<img src>`, `<Frame><img src>`). */
const linkAttributes: Record<string, Reference['kind']> = { href: 'link', src: 'image', to: 'link' };

/**
 * The links and images of a page: Markdown links, images and link definitions, and the `href`/`src`
 * of JSX components in MDX. A page that does not parse has none (its compile problem is reported).
 */
export function referencesOf(path: string, text: string): Reference[] {
  const processor = extensionOf(path) === 'mdx' ? processors.mdx : processors.md;
  let tree: Node;
  try {
    tree = processor.parse(splitFrontMatter(text).body) as Node;
  } catch {
    return [];
  }
  const references: Reference[] = [];
  // An explicit stack rather than recursion: a deeply nested page cannot overflow the call stack.
  const pending: Node[] = [tree];
  while (pending.length > 0) {
    const node = pending.pop() as Node;
    const line = node.position?.start.line;
    if ((node.type === 'link' || node.type === 'definition') && node.url) references.push({ kind: 'link', target: node.url, line });
    if (node.type === 'image' && node.url) references.push({ kind: 'image', target: node.url, line });
    if (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') {
      for (const attribute of node.attributes ?? []) {
        const kind = attribute.type === 'mdxJsxAttribute' && attribute.name ? linkAttributes[attribute.name] : undefined;
        if (kind && typeof attribute.value === 'string' && attribute.value) references.push({ kind, target: attribute.value, line });
      }
    }
    if (node.children) for (let index = node.children.length - 1; index >= 0; index--) pending.push(node.children[index]);
  }
  return references;
}
