import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  child: ChildProcess;
  url: string | null;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts test/support/service-process.ts with `env` and waits until it is ready. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['test/support/service-process.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`service process exited with ${code} before it was ready`)));
  });
  const { url } = JSON.parse(line) as { url: string | null };
  return {
    child,
    url,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}

/** Runs an operation of test/support/storage-process.ts in its own process; resolves with its JSON result. */
export function storageProcess(operation: string, env: Record<string, string>): { result: Promise<unknown>; exited: () => boolean } {
  const child = spawn(process.execPath, ['test/support/storage-process.ts', operation], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const result = new Promise<unknown>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`storage process "${operation}" exited with ${code}`))));
  });
  return { result, exited: () => child.exitCode !== null };
}
