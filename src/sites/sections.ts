import type { MarkdownNode } from './mdast.ts';

export interface Heading {
  level: number;
  text: string;
  /** The anchor a reader links to (`#install`), as GitHub and the docs frameworks write it. */
  anchor: string;
  line: number | undefined;
}

/** A part of a page a search answers with: the text before the first `##` heading, or one `##`/`###` heading and what follows it. */
export interface Section {
  /** '' for the text before the first heading (the page itself). */
  anchor: string;
  /** The heading's text; the page's title for the text before the first heading. */
  heading: string;
  level: number;
  /** The section's Markdown as written, its heading included. */
  markdown: string;
  /** Its text without Markdown: MDX imports, exports and expressions left out, component tags dropped but their text kept, code kept. */
  text: string;
}

/** Nodes whose text is not prose a reader sees: imports and exports, expressions, raw HTML tags. */
const dropped = new Set(['mdxjsEsm', 'mdxFlowExpression', 'mdxTextExpression', 'html', 'image', 'imageReference', 'definition']);
/** Nodes whose children run on in one line. */
const inline = new Set(['paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'mdxJsxTextElement', 'tableCell']);
/** Deeper nesting is not documentation; its text is left out rather than risking the call stack. */
const maxDepth = 256;

/**
 * The headings of a page and its sections, split at top-level `##` and `###` headings (a heading
 * inside a component, such as a tab, stays in its section). `titleOf` names the text before them.
 */
export function outlineOf(tree: MarkdownNode, body: string, titleOf: (headings: Heading[]) => string): { headings: Heading[]; sections: Section[] } {
  const headingOf = new Map<MarkdownNode, Heading>();
  const headings: Heading[] = [];
  const slugger = anchorWriter();
  const pending: MarkdownNode[] = [tree];
  while (pending.length > 0) {
    const node = pending.pop() as MarkdownNode;
    if (node.type === 'heading') {
      const text = plainText(node, 0).trim();
      const heading = { level: node.depth ?? 1, text, anchor: slugger(text), line: node.position?.start.line };
      headingOf.set(node, heading);
      headings.push(heading);
    }
    if (node.children) for (let index = node.children.length - 1; index >= 0; index--) pending.push(node.children[index]);
  }

  const sections: Section[] = [];
  let current = { anchor: '', heading: titleOf(headings), level: 1, start: 0, nodes: [] as MarkdownNode[] };
  const close = (end: number) => {
    // The text before the first heading is a section when it says something besides the title (imports alone do not).
    const prose = current.nodes.filter((node) => !(current.anchor === '' && node.type === 'heading' && node.depth === 1));
    const text = prose
      .map((node) => plainText(node, 0).trim())
      .filter(Boolean)
      .join('\n\n');
    if (current.anchor !== '' || text !== '') {
      sections.push({ anchor: current.anchor, heading: current.heading, level: current.level, markdown: body.slice(current.start, end).trim(), text });
    }
  };
  for (const node of tree.children ?? []) {
    const splits = node.type === 'heading' && (node.depth === 2 || node.depth === 3);
    if (!splits) {
      current.nodes.push(node);
      continue;
    }
    const start = node.position?.start.offset ?? body.length;
    close(start);
    const heading = headingOf.get(node) as Heading;
    current = { anchor: heading.anchor, heading: heading.text, level: heading.level, start, nodes: [] };
  }
  close(body.length);
  return { headings, sections };
}

function plainText(node: MarkdownNode, depth: number): string {
  if (dropped.has(node.type) || depth > maxDepth) return '';
  if (node.type === 'break') return '\n';
  if (!node.children) return node.value ?? '';
  const parts = node.children.map((child) => plainText(child, depth + 1));
  if (inline.has(node.type)) return parts.join('');
  return parts
    .map((part) => part.trim())
    .filter(Boolean)
    .join(node.type === 'tableRow' ? ' | ' : '\n');
}

/**
 * GitHub's heading anchors: lower case, punctuation removed (letters, digits, marks, `_` and `-`
 * stay), spaces as `-`; a repeated anchor gets `-1`, `-2`, … The character class is matched one
 * character at a time, in linear time.
 */
function anchorWriter(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replaceAll(' ', '-');
    let anchor = base;
    while (seen.has(anchor)) {
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      anchor = `${base}-${count}`;
    }
    seen.set(anchor, 0);
    return anchor;
  };
}
