import type { MarkdownNode } from './mdast.ts';

/** A link or image a page makes, as written. */
export interface PageLink {
  kind: 'link' | 'image';
  target: string;
  line: number | undefined;
}

/** Attributes of JSX components that name a page or an image (`<Card href>`, `<img src>`, `<Frame><img src>`). */
const linkAttributes: Record<string, PageLink['kind']> = { href: 'link', src: 'image', to: 'link' };

/**
 * The links and images of a page's syntax tree: Markdown links, images and link definitions, and
 * the `href`/`src` of JSX components in MDX.
 */
export function linksOf(tree: MarkdownNode): PageLink[] {
  const links: PageLink[] = [];
  // An explicit stack rather than recursion: a deeply nested page cannot overflow the call stack.
  const pending: MarkdownNode[] = [tree];
  while (pending.length > 0) {
    const node = pending.pop() as MarkdownNode;
    const line = node.position?.start.line;
    if ((node.type === 'link' || node.type === 'definition') && node.url) links.push({ kind: 'link', target: node.url, line });
    if (node.type === 'image' && node.url) links.push({ kind: 'image', target: node.url, line });
    if (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') {
      for (const attribute of node.attributes ?? []) {
        const kind = attribute.type === 'mdxJsxAttribute' && attribute.name ? linkAttributes[attribute.name] : undefined;
        if (kind && typeof attribute.value === 'string' && attribute.value) links.push({ kind, target: attribute.value, line });
      }
    }
    if (node.children) for (let index = node.children.length - 1; index >= 0; index--) pending.push(node.children[index]);
  }
  return links;
}
