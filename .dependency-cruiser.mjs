/**
 * Structure rules, checked by `npm run lint`: no import cycles between files or between folders, and
 * dependencies that point one way: cli → server → features (accounts among them) → http, storage,
 * config, lib.
 */
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
      name: 'sites-stand-alone',
      severity: 'error',
      comment: 'What a docs site is serves the agent and the docs index alike: it uses only lib/ and packages.',
      from: { path: '^src/sites/' },
      to: { path: '^src/', pathNot: ['^src/sites/', '^src/lib/'] },
    },
    {
      name: 'shared-below-features',
      severity: 'error',
      comment: 'http, storage, config and lib are what features share: they import only one another, never a feature or server.',
      from: { path: '^src/(http|storage|config|lib)/' },
      to: { path: '^src/', pathNot: '^src/(http|storage|config|lib)/' },
    },
    {
      name: 'llm-knows-no-features',
      severity: 'error',
      comment: 'llm/ serves the job agent and the docs assistant alike: it imports only lib/, config/ and packages.',
      from: { path: '^src/llm/' },
      to: { path: '^src/', pathNot: '^src/(llm|lib|config)/' },
    },
    {
      name: 'workspace-knows-no-jobs',
      severity: 'error',
      comment: 'workspace/ serves job checkouts and docs snapshots: it never imports jobs/, agent/ or llm/.',
      from: { path: '^src/workspace/' },
      to: { path: '^src/(jobs|agent|llm)/' },
    },
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
