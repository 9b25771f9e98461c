import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { FileEntry } from '../lib/readable-files.ts';
import { changesBetween, type CommitChanges } from './changes.ts';
import { displayRepository } from '../lib/display-repository.ts';
import { explainGitError } from './git-errors.ts';
import { gitEnvironment, runGit, type GitOptions } from './git.ts';
import { withLock } from './lock.ts';
import { carriesChange, containsCommit, defaultBranch, mirrorPath, normalizeRepository, refreshMirror, resolveRef } from './mirror.ts';
import { isGitFolder, pathSegments } from './paths.ts';
import { maxReadBytes } from './readable-files.ts';
import { WorkspaceGitError, WorkspacePathError, type RepositoryAtRef } from './types.ts';

/** Git's file modes of a symbolic link and of a submodule (a commit, not a file of this repository). */
const linkMode = '120000';
const submoduleMode = '160000';
/** Links followed one after another before a path counts as a loop, as the kernel's limit. */
const maxLinkHops = 40;
/** Object ids per `git fetch` of missing blobs. */
const idsPerFetch = 1000;

/** A blob of the tree: its object id and size in bytes; a link's blob holds its target. */
interface TreeBlob {
  id: string;
  size: number;
  link: boolean;
}

/** A path resolved through the tree's links: a file (with its blob), a folder, or nothing. */
type Resolved = { type: 'file'; path: string; blob: TreeBlob } | { type: 'directory'; path: string } | null;

/**
 * A repository's files at one commit, read from git's objects: nothing is checked out, so opening
 * one costs a fetch and a listing of the tree, and reading a file costs reading its blob. What a
 * docs build needs of a repository, without writing the repository's files to disk.
 */
export interface CommitTree {
  ref: string;
  commit: string;
  files: {
    /** Files (and folders) as a checkout's `ReadableFiles.list` of the root lists them. */
    list(): Promise<FileEntry[]>;
    /** A text file's content, refused as a checkout's `ReadableFiles.read` refuses it. */
    read(path: string): Promise<string>;
  };
  /** The blob id of the file at `path` (through links inside the tree), or null: the same id is the same text. */
  blobId(path: string): string | null;
  /** Paths of the symbolic links the tree holds. */
  symbolicLinks(): Promise<string[]>;
  changedSince(commit: string): Promise<CommitChanges>;
  commitOf(ref: string): Promise<string | null>;
  contains(commit: string): Promise<boolean>;
  /** Whether this commit carries the change `commit` made (mirror.ts's carriesChange): a squash or rebase merge of it. */
  carries(commit: string): Promise<boolean>;
  /** Ends the blob reader; calling it again does nothing. */
  dispose(): Promise<void>;
}

/**
 * Fetches the repository's mirror (under its lock, as a job's checkout does), resolves the ref and lists
 * the commit's tree. A partial mirror (HTTP remotes, `blob:none`) fetches the tree's missing blobs
 * in a few requests first, as `git worktree add` would, instead of one request per blob read.
 */
export async function openCommitTree(options: RepositoryAtRef): Promise<CommitTree> {
  const repository = normalizeRepository(options.repository);
  const mirror = mirrorPath(options.root, repository);
  const git: GitOptions & { repository: string } = { cwd: mirror, repository, credentials: options.credentials, signal: options.signal };
  const { ref, commit } = await withLock(
    `${mirror}.lock`,
    async () => {
      await refreshMirror(mirror, git);
      const ref = options.ref ?? (await defaultBranch(mirror, git));
      const commit = await resolveRef(mirror, ref);
      if (!commit)
        throw new WorkspaceGitError(`Branch or ref "${ref}" does not exist in ${displayRepository(repository)}; choose an existing branch, tag or commit.`);
      await fetchMissingBlobs(git, commit).catch((error: unknown) => {
        throw explainGitError(error, 'fetch', repository);
      });
      return { ref, commit };
    },
    options.signal,
  );
  const blobs = parseTree(await runGit(['ls-tree', '-r', '-z', '--long', '--full-tree', commit], git));
  const folders = new Set<string>();
  for (const path of blobs.keys()) for (let at = path.indexOf('/'); at > 0; at = path.indexOf('/', at + 1)) folders.add(path.slice(0, at));
  const reader = new BlobReader(git);

  /** Follows links component by component; a link leaving the tree, into .git, dangling or looping is refused. */
  const resolve = (input: string, segments: string[]): Resolved => {
    let pending = [...segments];
    let done: string[] = [];
    let firstLink: string | null = null;
    const refused = () => {
      const through = firstLink === segments.join('/') ? `"${input}" is a symbolic link` : `"${input}" passes through the symbolic link "${firstLink}", which`;
      return new WorkspacePathError(
        `${through} points outside the repository or into .git; Quire does not follow such links. Work with the regular files inside the repository instead.`,
      );
    };
    for (let hops = 0; pending.length > 0;) {
      const path = [...done, pending[0]].join('/');
      const blob = blobs.get(path);
      if (!blob?.link) {
        done.push(pending.shift()!);
        if ((!blob && !folders.has(path)) || (blob && pending.length > 0)) {
          // A dangling link could be made to point anywhere by writing through it.
          if (firstLink !== null) throw refused();
          return null;
        }
        continue;
      }
      firstLink ??= path;
      const target = reader.linkTarget(blob.id);
      const joined = posix.normalize(posix.join(done.join('/'), target));
      const targetSegments = joined === '.' ? [] : joined.split('/');
      if (posix.isAbsolute(target) || targetSegments[0] === '..' || targetSegments.some(isGitFolder) || ++hops > maxLinkHops) throw refused();
      pending = [...targetSegments, ...pending.slice(1)];
      done = [];
    }
    const path = done.join('/');
    const blob = blobs.get(path);
    return blob ? { type: 'file', path, blob } : { type: 'directory', path };
  };
  const fileAt = (path: string): Resolved => resolve(path, pathSegments(path));

  const links = [...blobs].filter(([, blob]) => blob.link).map(([path]) => path);
  await reader.loadLinks(links.map((path) => blobs.get(path)!.id));

  let disposed: Promise<void> | null = null;
  return {
    ref,
    commit,
    files: {
      async list() {
        const entries: FileEntry[] = [...folders].map((path) => ({ path, type: 'directory', size: 0 }));
        for (const [path, blob] of blobs) {
          if (path.split('/').some(isGitFolder)) continue;
          if (!blob.link) {
            entries.push({ path, type: 'file', size: blob.size });
            continue;
          }
          const target = (() => {
            try {
              return fileAt(path);
            } catch {
              return null;
            }
          })();
          if (target) entries.push({ path, type: target.type, size: target.type === 'file' ? target.blob.size : 0 });
        }
        return entries.sort((a, b) => (a.path < b.path ? -1 : 1));
      },
      async read(path) {
        const file = fileAt(path);
        const relative = pathSegments(path).join('/');
        if (!file) throw new WorkspacePathError(`"${relative}" does not exist; use list_files to see which files do.`);
        if (file.type === 'directory') throw new WorkspacePathError(`"${relative}" is a folder; use list_files to see its contents.`);
        if (file.blob.size > maxReadBytes)
          throw new WorkspacePathError(`"${relative}" has ${file.blob.size} bytes, more than the ${maxReadBytes} Quire reads as text.`);
        const content = await reader.read(file.blob.id);
        if (content.subarray(0, 8192).includes(0))
          throw new WorkspacePathError(`"${relative}" is a binary file (${file.blob.size} bytes); it cannot be read or edited as text.`);
        return content.toString('utf8');
      },
    },
    blobId(path) {
      try {
        const file = fileAt(path);
        return file?.type === 'file' ? file.blob.id : null;
      } catch {
        return null;
      }
    },
    symbolicLinks: async () => links,
    changedSince: (earlier) => changesBetween({ cwd: mirror }, earlier, commit),
    commitOf: (name) => resolveRef(mirror, name),
    contains: (ancestor) => containsCommit(mirror, ancestor, commit),
    carries: (change) => carriesChange(mirror, change, commit),
    dispose: () => (disposed ??= reader.close()),
  };
}

/** `git ls-tree -r -z --long` output: "<mode> <type> <id> <size>\t<path>\0" per entry; submodules are left out. */
function parseTree(output: string): Map<string, TreeBlob> {
  const blobs = new Map<string, TreeBlob>();
  for (const entry of output.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, id, size] = entry.slice(0, tab).split(/ +/);
    if (type !== 'blob' || mode === submoduleMode) continue;
    blobs.set(entry.slice(tab + 1), { id: id!, size: Number(size), link: mode === linkMode });
  }
  return blobs;
}

/**
 * In a partial mirror (its config marks origin a promisor), fetches the blobs of `commit`'s tree that it lacks, in batches, as git's own
 * lazy fetch asks for them (no negotiation, no tags); a complete mirror has nothing missing.
 */
async function fetchMissingBlobs(git: GitOptions, commit: string): Promise<void> {
  // The mirror's own config, as createMirror wrote it: reading the file saves a `git config` process per build.
  const config = await readFile(join(git.cwd, 'config'), 'utf8').catch(() => '');
  if (!/^\s*promisor\s*=\s*true\s*$/im.test(config)) return;
  const listed = await runGit(['rev-list', '--objects', '--no-walk', '--missing=print', commit], git);
  const missing = listed
    .split('\n')
    .filter((line) => line.startsWith('?'))
    .map((line) => line.slice(1).trim());
  for (let start = 0; start < missing.length; start += idsPerFetch) {
    await runGit(
      [
        '-c',
        'fetch.negotiationAlgorithm=noop',
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--recurse-submodules=no',
        '--filter=blob:none',
        'origin',
        ...missing.slice(start, start + idsPerFetch),
      ],
      git,
    );
  }
}

/** One `git cat-file --batch` for the tree's blobs: each request written, each answer read in order. */
class BlobReader {
  readonly #git: GitOptions;
  #child: ChildProcessByStdio<Writable, Readable, null> | null = null;
  readonly #waiting: { resolve: (content: Buffer) => void; reject: (error: Error) => void }[] = [];
  #chunks: Buffer[] = [];
  #buffered = 0;
  #size: number | null = null;
  readonly #targets = new Map<string, string>();

  constructor(git: GitOptions) {
    this.#git = git;
  }

  /** Reads the targets of the tree's links at once, so resolving paths needs no waiting. */
  async loadLinks(ids: string[]): Promise<void> {
    const targets = await Promise.all(ids.map((id) => this.read(id)));
    ids.forEach((id, index) => this.#targets.set(id, targets[index]!.toString('utf8')));
  }

  linkTarget(id: string): string {
    return this.#targets.get(id) ?? '';
  }

  read(id: string): Promise<Buffer> {
    const child = (this.#child ??= this.#start());
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      child.stdin.write(`${id}\n`);
    });
  }

  #start() {
    const child = spawn('git', ['cat-file', '--batch'], {
      cwd: this.#git.cwd,
      env: gitEnvironment(this.#git),
      signal: this.#git.signal,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdout.on('data', (chunk: Buffer) => this.#receive(chunk));
    const fail = (error: Error) => {
      for (const waiting of this.#waiting.splice(0)) waiting.reject(error);
      this.#child = null;
    };
    child.on('error', fail);
    child.stdin.on('error', fail);
    child.on('close', () => fail(new Error('git cat-file ended before answering')));
    return child;
  }

  /** Answers: "<id> blob <size>\n<content>\n", or "<id> missing\n". */
  #receive(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    for (;;) {
      if (this.#size === null) {
        const data = this.#take();
        const end = data.indexOf(0x0a);
        if (end < 0) return;
        const header = data.subarray(0, end).toString('utf8');
        this.#keep(data.subarray(end + 1));
        const size = / (blob|tree|commit|tag) (\d+)$/.exec(header);
        if (!size) {
          this.#waiting.shift()?.reject(new WorkspacePathError(`A file of the repository could not be read (${header}).`));
          continue;
        }
        this.#size = Number(size[2]);
      }
      if (this.#buffered < this.#size + 1) return;
      const data = this.#take();
      const content = Buffer.from(data.subarray(0, this.#size));
      this.#keep(data.subarray(this.#size + 1));
      this.#size = null;
      this.#waiting.shift()?.resolve(content);
    }
  }

  #take(): Buffer {
    const data = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    this.#chunks = [data];
    return data;
  }

  #keep(rest: Buffer): void {
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#buffered = rest.length;
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = null;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin.end();
    await closed;
  }
}
