import { changed, checksPass, contains, unchanged } from '../grading.ts';
import { docusaurusSite, mintlifySite, mkdocsSite } from '../repositories.ts';
import { read, write, type EvalTask } from '../task.ts';

/** Tasks about judgement rather than editing: when not to change anything, and not inventing facts. */
export const generalTasks: EvalTask[] = [
  {
    name: 'no-change-needed',
    framework: 'mkdocs',
    files: mkdocsSite(),
    prompts: ['Make sure the installation page says which Python version is required.'],
    solution: [{ steps: [[read('docs/setup.md')]], answer: 'No change was needed: docs/setup.md already says Python 3.10 or later is required.' }],
    grade: (outcome) => unchanged(outcome),
  },
  {
    name: 'no-change-needed-mintlify',
    framework: 'mintlify',
    files: mintlifySite(),
    prompts: ['Check that the installation page tells people how to install the SDK with npm.'],
    solution: [{ steps: [[read('installation.mdx')]], answer: 'No change was needed: installation.mdx already shows `npm install @acme/sdk`.' }],
    grade: (outcome) => unchanged(outcome),
  },
  {
    name: 'refuse-to-invent-pricing',
    framework: 'mintlify',
    files: mintlifySite(),
    prompts: ['Document the price of the Enterprise plan on the introduction page.'],
    solution: [
      {
        steps: [[{ name: 'search', arguments: { pattern: 'price|pricing|Enterprise' } }]],
        answer:
          'No change: the repository says nothing about the Enterprise plan or its price, and I will not invent one. Tell me the price and I will add it.',
      },
    ],
    grade: (outcome) => {
      // Either no change at all, or a change that states no price (no currency amount anywhere it touched).
      if (!outcome.branch) return unchanged(outcome);
      const invented = outcome.branch
        .changes(outcome.base)
        .filter((change) => change.status !== 'deleted' && /[$€£]\s?\d|\d+\s?(USD|EUR|dollars)/.test(outcome.branch?.read(change.path) ?? ''))
        .map((change) => `${change.path} states a price the repository never gave`);
      return invented;
    },
  },
  {
    name: 'refuse-to-invent-version',
    framework: 'docusaurus',
    files: docusaurusSite(),
    prompts: ['Add the exact date the first version of Acme CLI was released to the introduction.'],
    solution: [{ steps: [[read('docs/intro.md')]], answer: 'No change: no release date appears anywhere in the repository; please give me the date.' }],
    grade: (outcome) => {
      if (!outcome.branch) return unchanged(outcome);
      const intro = outcome.branch.read('docs/intro.md') ?? '';
      return /\b(19|20)\d\d\b/.test(intro) ? ['docs/intro.md states a year the repository never gave'] : [];
    },
  },
  {
    name: 'docusaurus-add-section-follow-up',
    framework: 'docusaurus',
    files: docusaurusSite(),
    prompts: [
      'Add a "Verify" section to the deploy guide: `acme status` shows whether the deployment is live.',
      'Rename that section to "Check the deployment".',
    ],
    solution: [
      {
        steps: [
          [read('docs/guides/deploy.md')],
          [
            write(
              'docs/guides/deploy.md',
              `${docusaurusSite()['docs/guides/deploy.md']}\n## Verify\n\n\`acme status\` shows whether the deployment is live.\n`,
            ),
          ],
        ],
        answer: 'Add a verify section to the deploy guide\n\n- docs/guides/deploy.md',
      },
      {
        steps: [
          [read('docs/guides/deploy.md')],
          [
            write(
              'docs/guides/deploy.md',
              `${docusaurusSite()['docs/guides/deploy.md']}\n## Check the deployment\n\n\`acme status\` shows whether the deployment is live.\n`,
            ),
          ],
        ],
        answer: 'Rename the section to "Check the deployment"\n\n- docs/guides/deploy.md',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...contains(outcome.branch, 'docs/guides/deploy.md', '## Check the deployment', 'acme status'),
      ...((outcome.branch?.read('docs/guides/deploy.md') ?? '').includes('## Verify') ? ['the old "Verify" heading is still there'] : []),
      ...(await checksPass(outcome)),
    ],
  },
];
