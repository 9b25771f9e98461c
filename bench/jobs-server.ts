/**
 * A server process for the job benchmarks. `quire` mode runs Quire (API and/or worker) with a
 * no-op agent runner, so figures measure the API and the queue, not a model; `bare` mode is a bare
 * Fastify route returning the same JSON as a job, the reference for the GET figure.
 * Prints one JSON line with the URL (and the project, key and a job in quire mode).
 */
import Fastify from 'fastify';
import { createKey } from '../src/accounts/keys.ts';
import { createOrganization, listOrganizations } from '../src/accounts/organizations.ts';
import { createProject, listProjects } from '../src/accounts/projects.ts';
import { createJob } from '../src/jobs/service.ts';
import { jobView } from '../src/jobs/view.ts';
import { loadConfig } from '../src/config/config.ts';
import { startService } from '../src/server/service.ts';

const mode = process.argv[2];
const sampleJob = {
  id: 'job_01JDQ3M4Z8K9V2N6R5T7W1X0YA',
  status: 'completed',
  source: { repository: 'https://github.com/acme/docs', ref: 'main' },
  model: 'anthropic:claude-sonnet-4-5',
  prLink: 'https://github.com/acme/docs/pull/1',
  createdAt: '2026-11-21T09:30:00.000Z',
  archivedAt: null,
  updatedAt: '2026-11-21T09:31:00.000Z',
  error: null,
};

if (mode === 'bare') {
  const app = Fastify();
  app.get('/v2/agent/:projectId/job/:id', async () => sampleJob);
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` })}\n`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
} else {
  const config = loadConfig(process.env, { logLevel: 'silent', port: 0 });
  const service = await startService({
    config,
    api: process.env.BENCH_API !== '0',
    worker: process.env.BENCH_WORKER !== '0',
    agent: {
      runner: { run: async () => ({ prLink: null }) },
      modelFor: () => 'openai-compatible:bench',
      checkProject: () => null,
    },
  });
  const { db } = service.context.storage;
  // The first process of a benchmark sets up the tenant; later ones reuse it.
  let organization = (await listOrganizations(db))[0];
  organization ??= await createOrganization(db, 'Bench');
  // BENCH_PROJECTS projects, so load can spread over many per-project rate limits as real traffic does.
  let projects = await listProjects(db, organization.id);
  for (let index = projects.length; index < Number(process.env.BENCH_PROJECTS ?? 1); index++) {
    await createProject(db, organization.id, { name: `Bench ${index}`, repository: 'https://github.com/acme/docs', ref: 'main' });
  }
  projects = await listProjects(db, organization.id);
  const { key } = await createKey(db, organization.id);
  const job = service.url ? jobView((await createJob(service.context, projects[0], { prompt: 'bench' })).job) : null;
  const info = { url: service.url, projectId: projects[0].id, projectIds: projects.map((project) => project.id), key, jobId: job?.id };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  process.on('SIGTERM', () => service.stop().then(() => process.exit(0)));
}
