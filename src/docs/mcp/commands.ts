import type { DocsTree, TreeEntry } from './docs-tree.ts';
import { UsageError } from './errors.ts';
import { maxOutputBytes, type OutputPiece } from './output.ts';

export type Command = (args: string[], tree: DocsTree) => Promise<OutputPiece[]>;

/** Deepest `tree -L` accepted; deeper trees are cut by the output limit anyway. */
const maxTreeDepth = 100;
/** Most lines `head -n` takes; the output limit cuts long answers anyway. */
const maxHeadLines = 1_000_000;

export const ls: Command = async (args, tree) => {
  const [path, ...extra] = operands('ls', args);
  if (extra.length > 0) throw new UsageError('ls takes one path.');
  const entry = tree.requireEntry(path);
  if (!entry.isFolder) return [{ text: `${entry.path}\n` }];
  const lines = tree.children(entry.path).map((child) => (child.isFolder ? `${child.name}/` : child.name));
  return [{ text: lines.length > 0 ? `${lines.join('\n')}\n` : '(no pages)\n' }];
};

export const treeCommand: Command = async (args, tree) => {
  let depth = Infinity;
  const paths: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const argument = args[index];
    if (argument === '-L' || /^-L\d+$/.test(argument)) {
      const value = argument === '-L' ? args[++index] : argument.slice(2);
      depth = positiveInteger('tree -L', value, maxTreeDepth);
    } else if (argument.startsWith('-')) throw new UsageError(`tree does not take ${argument}.`);
    else paths.push(argument);
  }
  if (paths.length > 1) throw new UsageError('tree takes one path.');
  const root = tree.requireEntry(paths[0]);
  const counts = { folders: 0, pages: 0 };
  const lines = [root.path === '' ? '/' : root.path, ...drawTree(tree, root, depth, '', counts)];
  return [{ text: `${lines.join('\n')}\n\n${plural(counts.folders, 'folder')}, ${plural(counts.pages, 'page')}\n` }];
};

function drawTree(tree: DocsTree, folder: TreeEntry, depth: number, indent: string, counts: { folders: number; pages: number }): string[] {
  if (!folder.isFolder || depth < 1) return [];
  const children = tree.children(folder.path);
  return children.flatMap((child, index) => {
    const last = index === children.length - 1;
    counts[child.isFolder ? 'folders' : 'pages']++;
    const line = `${indent}${last ? '└── ' : '├── '}${child.name}${child.isFolder ? '/' : ''}`;
    return [line, ...drawTree(tree, child, depth - 1, indent + (last ? '    ' : '│   '), counts)];
  });
}

/**
 * Pages are read one at a time, each once however often it is named, and none once the output is past
 * the limit (output.ts): a command naming one 1 MiB page 800 times read it 800 times at once (about
 * 3 GB) before the output was cut to 100 KB.
 */
export const cat: Command = async (args, tree) => {
  const paths = operands('cat', args);
  if (paths.length === 0) throw new UsageError('cat needs at least one path.');
  const pages = paths.map((path) => tree.requireFile(path));
  const contents = new Map<string, string>();
  const pieces: OutputPiece[] = [];
  let bytes = 0;
  for (const { path, file } of pages) {
    if (bytes > maxOutputBytes) {
      pieces[pieces.length - 1].more = true;
      break;
    }
    let content = contents.get(path);
    if (content === undefined) contents.set(path, (content = withFinalNewline(await file.read())));
    const text = pages.length > 1 ? `==> ${path} <==\n${content}\n` : content;
    pieces.push({ text, page: path });
    bytes += Buffer.byteLength(text);
  }
  return pieces;
};

export const head: Command = async (args, tree) => {
  let count = 10;
  const paths: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const argument = args[index];
    if (argument === '-n' || /^-n\d+$/.test(argument)) {
      count = positiveInteger('head -n', argument === '-n' ? args[++index] : argument.slice(2), maxHeadLines);
    } else if (argument.startsWith('-')) throw new UsageError(`head does not take ${argument}.`);
    else paths.push(argument);
  }
  if (paths.length !== 1) throw new UsageError('head takes one path.');
  const { path, file } = tree.requireFile(paths[0]);
  const lines = (await file.read()).split('\n').slice(0, count);
  return [{ text: withFinalNewline(lines.join('\n')), page: path }];
};

/** Arguments that are not options; these commands take none. */
function operands(command: string, args: string[]): string[] {
  const option = args.find((argument) => argument.startsWith('-') && argument !== '-');
  if (option) throw new UsageError(`${command} does not take ${option}.`);
  return args;
}

function positiveInteger(option: string, value: string | undefined, maximum: number): number {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > maximum) {
    throw new UsageError(`${option} needs a whole number from 1 to ${maximum}.`);
  }
  return Number(value);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function withFinalNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
