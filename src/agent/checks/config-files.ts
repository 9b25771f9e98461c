import { parseDocument } from 'yaml';
import { yamlReason } from '../../sites/markdown.ts';
import type { Problem } from '../../sites/site.ts';
import { countLines, extensionOf } from '../../sites/text.ts';

/** Whether `path` is a JSON or YAML file the checks parse. */
export function isConfigFile(path: string): boolean {
  const extension = extensionOf(path);
  return extension === 'json' || extension === 'yml' || extension === 'yaml';
}

/**
 * Parse problems of a JSON or YAML file. YAML tags the parser does not know (`!ENV`,
 * `!!python/name:` in MkDocs configurations) are only warnings: MkDocs resolves them itself.
 */
export function configFileProblems(path: string, text: string): Problem[] {
  if (extensionOf(path) === 'json') {
    try {
      JSON.parse(text);
      return [];
    } catch (error) {
      const message = (error as Error).message;
      return [{ file: path, line: jsonErrorLine(message, text), message: `is not valid JSON: ${jsonReason(message)}` }];
    }
  }
  const document = parseDocument(text, { uniqueKeys: true });
  // The first error only: the ones after it are usually its consequences.
  return document.errors
    .slice(0, 1)
    .map((error) => ({ file: path, line: error.linePos?.[0].line, message: `is not valid YAML: ${yamlReason(error.message)}` }));
}

/** V8's message up to the excerpt of the text it quotes (`Unexpected token '}', ..."a": [`). */
function jsonReason(message: string): string {
  const first = message.split('\n')[0];
  const excerpt = first.indexOf(', "');
  const elided = first.indexOf(', ...');
  const cut = [excerpt, elided].filter((index) => index > 0);
  return cut.length > 0 ? first.slice(0, Math.min(...cut)) : first;
}

/** V8 names the line (`line 3 column 5`) or the offset (`at position 42`) of a JSON error. */
function jsonErrorLine(message: string, text: string): number | undefined {
  const lineAt = message.indexOf('(line ');
  if (lineAt >= 0) {
    const value = Number.parseInt(message.slice(lineAt + 6), 10);
    if (Number.isInteger(value)) return value;
  }
  const positionAt = message.indexOf('position ');
  if (positionAt >= 0) {
    const offset = Number.parseInt(message.slice(positionAt + 9), 10);
    if (Number.isInteger(offset)) return countLines(text.slice(0, offset));
  }
  // "Unexpected end of JSON input": the file stops too early, so the problem is at its end.
  return countLines(text.trimEnd());
}
