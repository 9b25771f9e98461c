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
