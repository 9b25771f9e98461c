/**
 * Structure rules, checked by `npm run lint` (see ARCHITECTURE.md, "Modules"). Dependencies point one way:
 *
 *   cli → server → features → shared parts → base
 *
 * - base: `http/`, `storage/`, `config/`, `lib/` (they import one another only);
 * - shared parts: `accounts/` (keys, projects, request auth), `sites/`, `llm/`, `workspace/`, `code-hosts/`;
 * - features: `jobs/`, `agent/`, `analytics/`, `projects/`, `docs/`, `dashboard/`;
 * - `server/` wires the features; `cli/` runs it.
 *
 * A feature reaches another only through the files that feature declares as its entry points
 * (`entryPoints` below), so its internals can change without breaking its neighbours.
 */

/** What other folders may import of each feature; everything else in it is internal. */
const entryPoints = {
  analytics: [
    'state.ts',
    'capture/record.ts',
    'http/routes.ts',
    'http/feedback-routes.ts',
    'http/range.ts',
    'http/dimension-schemas.ts',
    'http/read-limit.ts',
    'drains/routes.ts',
    'drains/stored-secrets.ts',
    'query/query.ts',
    'query/series.ts',
    'query/breakdowns.ts',
    'query/dimensions.ts',
    'query/shared-links.ts',
    'model/days.ts',
    'feedback/feedback-query.ts',
    'feedback/search-query.ts',
    'feedback/interaction-visitors.ts',
    'feedback/gap-evidence.ts',
    'feedback/kinds.ts',
    'feedback/status.ts',
    'feedback/purge-loop.ts',
    'fold/background.ts',
    'fold/fold.ts',
    'fold/rebuild.ts',
    'fold/reclassify.ts',
    'importers/formats.ts',
    'importers/line-parser.ts',
    'importers/run.ts',
    'importers/tail.ts',
    'ingest/ingested.ts',
    'ingest/verify/ip-range-update.ts',
    'ingest/dimensions/country-update.ts',
    'proxy/proxy-server.ts',
    'proxy/recorder.ts',
    'proxy/worker-store.ts',
  ],
  jobs: [
    'runner.ts',
    'schemas.ts',
    'token-usage.ts',
    'read-cache.ts',
    'service.ts',
    'sessions.ts',
    'view.ts',
    'cancel.ts',
    'transcript.ts',
    'active.ts',
    'routes.ts',
    'live-routes.ts',
    'worker.ts',
    'queue/enqueue.ts',
    'events/hub.ts',
    'events/relay.ts',
    'events/stream.ts',
    'webhooks/routes.ts',
    'webhooks/loop.ts',
    'webhooks/emit.ts',
    'webhooks/events.ts',
    'webhooks/view.ts',
    'webhooks/endpoints.ts',
    'webhooks/deliveries.ts',
    'webhooks/stored-secrets.ts',
  ],
  agent: ['setup.ts', 'workbench.ts'],
  projects: ['routes.ts', 'settings.ts', 'readiness.ts'],
  dashboard: ['routes.ts', 'sessions.ts'],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const entryPointRules = Object.entries(entryPoints).map(([feature, files]) => ({
  name: `${feature}-entry-points`,
  severity: 'error',
  comment: `Other folders reach ${feature}/ only through its entry points (${files.join(', ')}); declare a new one in .dependency-cruiser.mjs when a neighbour needs it.`,
  from: { path: '^src/', pathNot: `^src/${feature}/` },
  to: { path: `^src/${feature}/`, pathNot: files.map((file) => `^src/${feature}/${escape(file)}$`) },
}));

export default {
  forbidden: [
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'A file reaches itself through its imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Two folders import each other (directly or through others): move the shared piece below both.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-below-features',
      severity: 'error',
      comment: 'http, storage, config and lib are what features share: they import only one another, never a feature or server.',
      from: { path: '^src/(http|storage|config|lib)/' },
      to: { path: '^src/', pathNot: '^src/(http|storage|config|lib)/' },
    },
    {
      name: 'accounts-below-features',
      severity: 'error',
      comment: 'accounts/ (keys, projects, request auth) is used by every feature: it imports only http, storage, config and lib.',
      from: { path: '^src/accounts/' },
      to: { path: '^src/', pathNot: '^src/(accounts|http|storage|config|lib)/' },
    },
    {
      name: 'sites-stand-alone',
      severity: 'error',
      comment: 'What a docs site is serves the agent and the docs index alike: it uses only lib/ and packages.',
      from: { path: '^src/sites/' },
      to: { path: '^src/', pathNot: ['^src/sites/', '^src/lib/'] },
    },
    {
      name: 'llm-knows-no-features',
      severity: 'error',
      comment: 'llm/ serves the job agent and the docs assistant alike: it imports only lib/, config/ and packages.',
      from: { path: '^src/llm/' },
      to: { path: '^src/', pathNot: '^src/(llm|lib|config)/' },
    },
    {
      name: 'workspace-knows-no-features',
      severity: 'error',
      comment: 'workspace/ serves job checkouts and docs snapshots: it imports only the base (http, storage, config, lib).',
      from: { path: '^src/workspace/' },
      to: { path: '^src/', pathNot: '^src/(workspace|http|storage|config|lib)/' },
    },
    {
      name: 'code-hosts-below-features',
      severity: 'error',
      comment: 'code-hosts/ publishes for jobs and reads for docs: it uses accounts, workspace and the base, never a feature.',
      from: { path: '^src/code-hosts/' },
      to: { path: '^src/(jobs|agent|analytics|projects|docs|dashboard|server|cli)/' },
    },
    {
      name: 'jobs-know-no-agent',
      severity: 'error',
      comment: 'jobs/ runs any AgentRunner (tests plug in scripted ones): it never imports the agent or the docs.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(agent|docs|analytics|projects)/' },
    },
    {
      name: 'agent-uses-jobs-contract',
      severity: 'error',
      comment: "agent/ uses jobs' runner contract (jobs/runner.ts: the types and the failure a runner throws) and other jobs types only.",
      from: { path: '^src/agent/' },
      to: { path: '^src/jobs/', pathNot: '^src/jobs/runner\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'analytics-knows-no-jobs',
      severity: 'error',
      comment: 'analytics/ counts traffic; it never imports jobs, the agent, projects or the docs.',
      from: { path: '^src/analytics/' },
      to: { path: '^src/(jobs|agent|projects|docs)/' },
    },
    {
      name: 'docs-not-agent',
      severity: 'error',
      comment:
        "docs/ may use sites, llm, workspace, code-hosts, accounts, analytics' recording entry point and jobs' service, never the agent (the admin MCP server reaches the agent's tools, checks and publishing through the workbench server/ puts on the context).",
      from: { path: '^src/docs/' },
      to: { path: '^src/agent/' },
    },
    {
      name: 'docs-through-jobs-service',
      severity: 'error',
      comment:
        "docs/ creates jobs through jobs/service.ts (and reads their shape from jobs/view.ts and jobs/schemas.ts); docs gaps queue their webhooks through jobs/webhooks/emit.ts; the admin MCP server's sessions are jobs through jobs/sessions.ts. Nothing else of jobs.",
      from: { path: '^src/docs/' },
      to: { path: '^src/jobs/', pathNot: '^src/jobs/(service|sessions|view|schemas|webhooks/emit)\\.ts$' },
    },
    {
      name: 'docs-through-analytics-recording',
      severity: 'error',
      comment:
        "docs/ hands what it serves to analytics through its recording entry point only (capture/record.ts: requests, searches and feedback); the assistant's exports, analytics reads of docs' own tables, also take the analytics range rules and read limit (http/range.ts, http/read-limit.ts); docs gaps read analytics' failures through feedback/gap-evidence.ts.",
      from: { path: '^src/docs/' },
      to: {
        path: '^src/analytics/',
        pathNot: [
          '^src/analytics/capture/record\\.ts$',
          '^src/analytics/http/(range|read-limit)\\.ts$',
          '^src/analytics/feedback/gap-evidence\\.ts$',
          '^src/analytics/state\\.ts$',
        ],
      },
    },
    {
      name: 'only-server-imports-docs-and-dashboard',
      severity: 'error',
      comment: 'docs/ and dashboard/ are top-level features: only server/ wires them in.',
      from: { path: '^src/', pathNot: '^src/(server|docs|dashboard)/' },
      to: { path: '^src/(docs|dashboard)/' },
    },
    {
      name: 'dashboard-not-docs',
      severity: 'error',
      comment: 'The dashboard shows the docs feature through what server/ hands it, not by importing docs/.',
      from: { path: '^src/dashboard/' },
      to: { path: '^src/docs/' },
    },
    {
      name: 'docs-not-dashboard',
      severity: 'error',
      comment: 'docs/ serves readers and agents; the dashboard is a separate feature that server/ wires in.',
      from: { path: '^src/docs/' },
      to: { path: '^src/dashboard/' },
    },
    {
      name: 'features-not-server-or-cli',
      severity: 'error',
      comment: 'server/ wires the features and cli/ runs it: no feature imports either, and only cli imports server.',
      from: { path: '^src/', pathNot: '^src/(server|cli)/' },
      to: { path: '^src/(server|cli)/' },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment: 'cli/ is the top: nothing imports it.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    ...entryPointRules,
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A source file nothing imports.',
      from: { orphan: true, path: '^src/', pathNot: ['\\.d\\.ts$', '^src/cli/main\\.ts$', '-worker\\.ts$', '\\.js$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
