/**
 * Read access to a tree of files, confined to it: what a job's checkout and a read-only snapshot both
 * provide (see workspace/), and what the model's reading tools use (see llm/). It sits in lib/ so that
 * the provider and its users can name the same contract without importing each other.
 */

export interface FileEntry {
  path: string;
  type: 'file' | 'directory';
  size: number;
}

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

/**
 * Paths are relative to the tree's root; `..`, absolute paths, symbolic links leaving the tree and
 * anything under `.git/` are refused with a `FileAccessError` whose message the reader can act on.
 */
export interface ReadableFiles {
  /** Files and folders under `path` (default the root), recursively; `pattern` is a glob they must match. */
  list(path?: string, pattern?: string): Promise<FileEntry[]>;
  /** A text file's content; folders, binary files and very large files are refused. */
  read(path: string): Promise<string>;
  /** Lines of text files under `path` (default the root) matching a regular expression. */
  search(pattern: string, path?: string): Promise<SearchMatch[]>;
}

/**
 * A refused path or file operation, explained in a sentence the reader (a person or a model) can act
 * on. Its message never holds server paths, so it can be shown as it is.
 */
export class FileAccessError extends Error {
  override name = 'FileAccessError';
}
