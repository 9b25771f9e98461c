import { spawn } from 'node:child_process';
import type { GitCredentials } from './types.ts';

export interface GitOptions {
  cwd: string;
  /** Repository URL the credentials belong to; they are sent only to its origin. */
  repository?: string;
  credentials?: GitCredentials;
  signal?: AbortSignal;
  /** Extra environment variables, such as the commit author. */
  environment?: Record<string, string>;
}

/** A git command exited with an error; `stderr` is already scrubbed of credentials. */
export class GitCommandError extends Error {
  readonly stderr: string;
  readonly exitCode: number | null;
  constructor(args: string[], stderr: string, exitCode: number | null) {
    super(`git ${args[0]} failed: ${stderr.trim() || `exit code ${exitCode}`}`);
    this.stderr = stderr;
    this.exitCode = exitCode;
  }
}

/**
 * Runs the system git with an argument list (never a shell). Credentials travel as an
 * `http.<origin>/.extraHeader` in GIT_CONFIG_* environment variables: unlike arguments they are not
 * visible to other users in the process list, and unlike `git config` they never reach a file.
 */
export function runGit(args: string[], options: GitOptions): Promise<string> {
  const environment = gitEnvironment(options);
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: environment, signal: options.signal, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => reject(new Error(scrubSecrets(error.message, options.credentials))));
    child.on('close', (code) => {
      if (code === 0) return resolve(Buffer.concat(stdout).toString('utf8'));
      reject(new GitCommandError(args, scrubSecrets(Buffer.concat(stderr).toString('utf8'), options.credentials), code));
    });
  });
}

/** The environment git runs in: no prompts, no inherited repository variables, credentials as configuration. */
export function gitEnvironment(options: GitOptions): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env, ...options.environment, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  // A git hook or another tool may have exported these; they would point commands at the wrong repository.
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ASKPASS', 'SSH_ASKPASS']) delete environment[name];
  // Set here, these outrank any repository's configuration: no file a job's tools could reach may make git run a program.
  const config: [string, string][] = [
    ['credential.helper', ''],
    ['core.fsmonitor', 'false'],
    ['core.hooksPath', '/dev/null'],
  ];
  if (options.credentials && options.repository && /^https?:/i.test(options.repository)) {
    const origin = new URL(options.repository).origin;
    config.push([`http.${origin}/.extraHeader`, `Authorization: Basic ${basicToken(options.credentials)}`]);
  }
  environment.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], index) => {
    environment[`GIT_CONFIG_KEY_${index}`] = key;
    environment[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return environment;
}

function basicToken(credentials: GitCredentials): string {
  return Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
}

/** Replaces every form in which a credential could appear in git's output. */
export function scrubSecrets(text: string, credentials: GitCredentials | undefined): string {
  if (!credentials?.password) return text;
  const forms = [basicToken(credentials), encodeURIComponent(credentials.password), credentials.password];
  return forms.reduce((result, secret) => result.split(secret).join('***'), text);
}
