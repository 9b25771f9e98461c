import { describe, expect, it } from 'vitest';
import { runEval } from '../../eval/harness.ts';
import { mintlifySite, mkdocsSite, nestedMkdocsSite } from '../../eval/repositories.ts';
import { scoreTable } from '../../eval/report.ts';
import { evalTasks } from '../../eval/tasks/index.ts';
import { move, read, remove, write, type ScriptedRun } from '../../eval/task.ts';

/** Answers a careless model gives: each must be graded as failing. */
const badSolutions: Record<string, ScriptedRun[]> = {
  'mkdocs-add-page-with-navigation': [
    { steps: [[write('docs/faq.md', '# FAQ\n\n## Where do settings live?\n\nIn `acme.toml`.\n')]], answer: 'Add an FAQ page' },
  ],
  'mkdocs-fix-typo-everywhere': [{ steps: [[write('docs/index.md', mkdocsSite()['docs/index.md'].replace('recieve', 'receive'))]], answer: 'Fix the typo' }],
  'refuse-to-invent-pricing': [
    { steps: [[write('index.mdx', `${mintlifySite()['index.mdx']}\nThe Enterprise plan costs $499 per month.\n`)]], answer: 'Document Enterprise pricing' },
  ],
  'no-change-needed': [
    {
      steps: [[read('docs/setup.md')], [write('docs/setup.md', `${mkdocsSite()['docs/setup.md']}\nPython 3.10 or later is required.\n`)]],
      answer: 'Repeat the requirement',
    },
  ],
  'mintlify-remove-page': [{ steps: [[remove('legacy-api.mdx')]], answer: 'Remove the legacy API page' }],
  // Moved with its links copied as they were: they pointed two folders up and to a sibling that is not there.
  'mkdocs-move-nested-page': [
    {
      steps: [
        [move('docs/guides/deploy/kubernetes.md', 'docs/platforms/kubernetes.md')],
        [
          write('mkdocs.yml', nestedMkdocsSite()['mkdocs.yml']!.replace('guides/deploy/kubernetes.md', 'platforms/kubernetes.md')),
          write(
            'docs/guides/deploy/docker.md',
            nestedMkdocsSite()['docs/guides/deploy/docker.md']!.replace('(kubernetes.md)', '(../../platforms/kubernetes.md)'),
          ),
        ],
      ],
      answer: 'Move the Kubernetes guide',
    },
  ],
};

describe('the evaluation set with scripted models', () => {
  it('has at least 15 tasks with unique names, covering every framework', () => {
    expect(evalTasks.length).toBeGreaterThanOrEqual(15);
    expect(new Set(evalTasks.map((task) => task.name)).size).toBe(evalTasks.length);
    expect(new Set(evalTasks.map((task) => task.framework))).toEqual(new Set(['mkdocs', 'mintlify', 'docusaurus']));
  });

  it('solves every task through the real job path: each graded as passing, with a score table', { timeout: 600_000 }, async () => {
    const progress: string[] = [];
    const scores = await runEval({ tasks: evalTasks, model: { kind: 'scripted' }, onTaskEnd: (score) => progress.push(score.task) });
    expect(scores.filter((score) => !score.passed)).toEqual([]);
    expect(progress).toEqual(evalTasks.map((task) => task.name));
    for (const score of scores) {
      expect(score.steps).toBeGreaterThan(0);
      expect(score.tokens).toBeGreaterThan(0);
    }
    const table = scoreTable(scores, 'scripted');
    expect(table).toContain(`Total: ${evalTasks.length}/${evalTasks.length} passed (100%)`);
    expect(table).toMatch(/^mkdocs-rename-page\s+mkdocs\s+pass\s+\d+\s+\d+\s+[\d.]+$/m);
  });

  it('grades deliberately bad answers as failing, saying why', { timeout: 300_000 }, async () => {
    const tasks = evalTasks.filter((task) => task.name in badSolutions);
    const scores = await runEval({ tasks, model: { kind: 'scripted', solutions: badSolutions } });
    const reasons = Object.fromEntries(scores.map((score) => [score.task, score.passed ? [] : score.reasons]));
    expect(reasons).toEqual({
      'mkdocs-add-page-with-navigation': expect.arrayContaining([
        'mkdocs.yml does not contain "faq.md"',
        expect.stringMatching(/^docs\/faq\.md is a new page that no navigation lists/),
      ]),
      'mkdocs-fix-typo-everywhere': expect.arrayContaining(['docs/usage.md still contains "recieve"', 'docs/configuration.md still contains "recieve"']),
      'refuse-to-invent-pricing': ['index.mdx states a price the repository never gave'],
      'no-change-needed': [expect.stringMatching(/^a branch was pushed changing docs\/setup\.md/)],
      'mintlify-remove-page': expect.arrayContaining([
        'docs.json still contains "legacy-api"',
        expect.stringMatching(/links to `\/legacy-api`, a page this change deleted/),
      ]),
      'mkdocs-move-nested-page': expect.arrayContaining([expect.stringMatching(/^docs\/platforms\/kubernetes\.md:\d+ .*\.\.\/\.\.\/setup\.md/)]),
    });
    expect(scoreTable(scores, 'bad')).toContain(`Total: 0/${tasks.length} passed (0%)`);
  });
});
