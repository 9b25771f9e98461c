import { compile } from '@mdx-js/mdx';
import { parseDocument } from 'yaml';
import type { Problem } from './site.ts';
import { extensionOf, splitFrontMatter } from './text.ts';

/**
 * Whether a page compiles as its framework will compile it: `.mdx` as MDX (JSX components,
 * expressions, imports), `.md` as CommonMark. Front matter is set aside first (as the frameworks do)
 * and checked as YAML on its own.
 */
export async function checkPage(path: string, text: string): Promise<Problem[]> {
  const problems: Problem[] = [];
  const { yaml, yamlLine, body } = splitFrontMatter(text);
  if (yaml !== null) problems.push(...frontMatterProblems(path, yaml, yamlLine));
  const format = extensionOf(path) === 'mdx' ? 'mdx' : 'md';
  try {
    await compile({ value: body, path }, { format });
  } catch (error) {
    problems.push(compileProblem(path, error));
  }
  return problems;
}

/** A compile (or parse) error of a page as a problem, with its line when the error names one. */
export function compileProblem(path: string, error: unknown): Problem {
  const format = extensionOf(path) === 'mdx' ? 'MDX' : 'Markdown';
  return { file: path, line: errorLine(error), message: `does not compile as ${format}: ${reason(error)}` };
}

/** The problems of a page's front matter alone (used to tell new problems from ones the base had). */
export function frontMatterProblems(path: string, yaml: string, firstLine: number): Problem[] {
  const document = parseDocument(yaml, { uniqueKeys: true });
  const problems: Problem[] = document.errors.slice(0, 1).map((error) => ({
    file: path,
    line: error.linePos ? firstLine + error.linePos[0].line - 1 : firstLine,
    message: `front matter is not valid YAML: ${yamlReason(error.message)}`,
  }));
  if (problems.length === 0 && document.contents !== null && !isMapping(document.toJS())) {
    problems.push({ file: path, line: firstLine, message: 'front matter must be a YAML mapping of keys to values (such as `title: …`).' });
  }
  return problems;
}

function isMapping(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function reason(error: unknown): string {
  const message = (error as { reason?: string }).reason ?? (error instanceof Error ? error.message : String(error));
  return firstSentence(message);
}

/** The parser's message without its own position (relative to the YAML alone) and code excerpt. */
export function yamlReason(message: string): string {
  const first = message.split('\n')[0];
  const at = first.lastIndexOf(' at line ');
  return (at > 0 ? first.slice(0, at) : first).trim();
}

function firstSentence(message: string): string {
  const line = message.split('\n')[0].trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** The line of a compile error: its own field, else the `(line:column-…)` its reason ends with. */
function errorLine(error: unknown): number | undefined {
  const fields = error as { line?: number; place?: { line?: number; start?: { line?: number } }; reason?: string };
  const line = fields.line ?? fields.place?.line ?? fields.place?.start?.line;
  if (typeof line === 'number') return line;
  const text = fields.reason ?? '';
  const open = text.lastIndexOf('(');
  if (open < 0) return undefined;
  const colon = text.indexOf(':', open);
  const value = colon > open ? Number(text.slice(open + 1, colon)) : Number.NaN;
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
