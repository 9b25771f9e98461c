import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const run = promisify(execFile);

/** The CLI run in `env`: `quire(...args)` answers its output, `quireFails(...args)` what it printed on failing with exit code 1. */
export function quireCommands(env: NodeJS.ProcessEnv) {
  const quire = (...args: string[]) => run(process.execPath, ['src/cli/main.ts', ...args], { env });
  async function quireFails(...args: string[]): Promise<string> {
    try {
      await quire(...args);
    } catch (error) {
      const failure = error as { code: number; stderr: string };
      expect(failure.code).toBe(1);
      return failure.stderr;
    }
    throw new Error(`quire ${args.join(' ')} succeeded`);
  }
  return { quire, quireFails };
}
