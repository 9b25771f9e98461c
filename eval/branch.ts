import { execFileSync } from 'node:child_process';
import { checkChange } from '../src/agent/checks/index.ts';
import type { Problem } from '../src/sites/site.ts';

/** A branch of the bare repository the job pushed to, read with git (nothing is checked out). */
export class Branch {
  readonly #repository: string;
  readonly name: string;
  readonly files: string[];

  constructor(repository: string, name: string) {
    this.#repository = repository;
    this.name = name;
    this.files = this.#git('ls-tree', '-r', '--name-only', `refs/heads/${name}`).split('\n').filter(Boolean);
  }

  /** The branch, or null when it was never pushed. */
  static find(repository: string, name: string): Branch | null {
    try {
      execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${name}`], { cwd: repository, stdio: 'ignore' });
      return new Branch(repository, name);
    } catch {
      return null;
    }
  }

  has(path: string): boolean {
    return this.files.includes(path);
  }

  read(path: string): string | null {
    return this.has(path) ? this.#git('show', `refs/heads/${this.name}:${path}`) : null;
  }

  /** Files added, modified or deleted against `base` since the branch left it. */
  changes(base: Branch): { path: string; status: 'added' | 'modified' | 'deleted' }[] {
    const fields = this.#git('diff', '--name-status', '-z', '--no-renames', `refs/heads/${base.name}...refs/heads/${this.name}`).split('\0');
    const changes: { path: string; status: 'added' | 'modified' | 'deleted' }[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      changes.push({ path: fields[index + 1], status: fields[index] === 'A' ? 'added' : fields[index] === 'D' ? 'deleted' : 'modified' });
    }
    return changes;
  }

  commitsSince(base: Branch): number {
    return Number(this.#git('rev-list', '--count', `refs/heads/${base.name}..refs/heads/${this.name}`).trim());
  }

  /** What Quire's docs checks find in the change against `base`: compile, front matter, config files, links, navigation. */
  async problems(base: Branch): Promise<Problem[]> {
    const report = await checkChange(
      {
        changes: this.changes(base),
        files: new Set(this.files),
        read: async (path) => this.read(path),
        readBase: async (path) => base.read(path),
      },
      { maxFileBytes: 1_048_576, maxScannedFiles: 5_000, pageTimeoutMs: 10_000, deadline: Date.now() + 60_000 },
    );
    return report.problems;
  }

  #git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.#repository, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  }
}
