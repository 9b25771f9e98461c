import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Config } from '../../src/config/config.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, testConfig, type Grants, type Tenant } from '../support/app.ts';

export interface JobView {
  id: string;
  status: string;
  prLink: string | null;
  error: string | null;
  model: string;
  source: { repository: string; ref: string | null };
  draft: boolean;
  problems: { file: string; line: number | null; message: string }[];
}

/** Quire as deployed: HTTP API and worker in one process, with the real agent, on a test database. */
export interface QuireUnderTest {
  url: string;
  tenant: Tenant;
  dataDir: string;
  service: RunningService;
  create(prompt: string): Promise<{ status: number; body: JobView & { code?: string } }>;
  followUp(jobId: string, prompt: string): Promise<{ status: number; body: JobView }>;
  /** Polls the job until it is no longer active. */
  finished(jobId: string): Promise<JobView>;
  messages(jobId: string): Promise<{ role: string; content: Record<string, unknown> }[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startQuire(
  storage: Storage,
  options: { repository: string; config?: Partial<Config>; ref?: string; grants?: Grants },
): Promise<QuireUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-e2e-'));
  // The port is fixed before start so links Quire builds from its configuration (local changes) point at it.
  const port = await freePort();
  const config = testConfig({ dataDir, port, workerPollMs: 20, agentMaxRetries: 0, ...options.config });
  const service = await startService({ config, api: true, worker: true, storage, logger: pino({ level: 'silent' }) });
  const tenant = await createTenant(storage, {
    project: { repository: options.repository, ref: options.ref ?? 'main', model: 'openai-compatible:test-model' },
  });
  await grantAccess(storage, config, tenant.orgId, options.grants ?? {});
  const url = `http://127.0.0.1:${port}`;
  const api = async <Body = JobView>(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...tenant.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const jobPath = `/v2/agent/${tenant.project.id}/job`;
  return {
    url,
    tenant,
    dataDir,
    service,
    create: (prompt) => api<JobView & { code?: string }>('POST', jobPath, { prompt }),
    followUp: (jobId, prompt) => api('POST', `${jobPath}/${jobId}/message`, { prompt }),
    async finished(jobId) {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const { body } = await api('GET', `${jobPath}/${jobId}`);
        if (body.status !== 'active') return body;
        if (Date.now() > deadline) throw new Error(`job ${jobId} still active`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    messages: async (jobId) => (await api<{ messages: Awaited<ReturnType<QuireUnderTest['messages']>> }>('GET', `${jobPath}/${jobId}/messages`)).body.messages,
    async stop() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
