import { readFrontMatter } from '../../src/sites/front-matter.ts';
import { changed, checksPass, contains, missing, nowhere, onlyChanged } from '../grading.ts';
import { docusaurusSidebars, docusaurusSite } from '../repositories.ts';
import { move, read, write, type EvalTask } from '../task.ts';

const site = docusaurusSite();

export const docusaurusTasks: EvalTask[] = [
  {
    name: 'docusaurus-add-page-with-navigation',
    framework: 'docusaurus',
    files: site,
    prompts: ['Add a "Rollback" guide explaining that `acme rollback` restores the previous deployment, and list it in the Guides sidebar after Deploy.'],
    solution: [
      {
        steps: [
          [read('sidebars.js')],
          [
            write('docs/guides/rollback.md', '# Rollback\n\nRun `acme rollback` to restore the previous deployment. See [deploy](deploy.md).\n'),
            write('sidebars.js', docusaurusSidebars(['guides/setup', 'guides/deploy', 'guides/rollback'])),
          ],
        ],
        answer: 'Add a rollback guide\n\n- docs/guides/rollback.md\n- sidebars.js',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...contains(outcome.branch, 'docs/guides/rollback.md', 'acme rollback'),
      ...contains(outcome.branch, 'sidebars.js', "'guides/deploy', 'guides/rollback'"),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'docusaurus-rename-page',
    framework: 'docusaurus',
    files: site,
    prompts: ['Rename the setup guide to docs/guides/getting-started.md (doc id guides/getting-started) and fix the sidebar and every link to it.'],
    solution: [
      {
        steps: [
          [{ name: 'search', arguments: { pattern: 'setup' } }],
          [
            move('docs/guides/setup.md', 'docs/guides/getting-started.md'),
            write('sidebars.js', docusaurusSidebars(['guides/getting-started', 'guides/deploy'])),
            write('docs/intro.md', site['docs/intro.md'].replace('(guides/setup.md)', '(guides/getting-started.md)')),
            write('docs/guides/deploy.md', site['docs/guides/deploy.md'].replace('(./setup.md)', '(./getting-started.md)')),
          ],
        ],
        answer: 'Rename the setup guide to getting-started\n\n- moved the page, fixed the sidebar and links',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...missing(outcome.branch, 'docs/guides/setup.md'),
      ...contains(outcome.branch, 'docs/guides/getting-started.md', 'acme login'),
      ...nowhere(outcome.branch, 'setup.md'),
      ...nowhere(outcome.branch, "'guides/setup'"),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'docusaurus-front-matter',
    framework: 'docusaurus',
    files: site,
    prompts: ['Give both guides a `description` in their front matter, one sentence each, taken from what the page says.'],
    solution: [
      {
        steps: [
          [read('docs/guides/setup.md'), read('docs/guides/deploy.md')],
          [
            write('docs/guides/setup.md', `---\ndescription: Sign in with acme login.\n---\n\n${site['docs/guides/setup.md']}`),
            write(
              'docs/guides/deploy.md',
              `---\ndescription: "Deploy with acme deploy: check the setup if it fails."\n---\n\n${site['docs/guides/deploy.md']}`,
            ),
          ],
        ],
        answer: 'Describe the guides in their front matter\n\n- docs/guides/setup.md, docs/guides/deploy.md',
      },
    ],
    grade: async (outcome) => {
      const reasons = [...changed(outcome), ...onlyChanged(outcome, ['docs/guides/setup.md', 'docs/guides/deploy.md'])];
      for (const path of ['docs/guides/setup.md', 'docs/guides/deploy.md']) {
        if (readFrontMatter(outcome.branch?.read(path) ?? '').description === null) reasons.push(`${path} has no description in valid front matter`);
      }
      return [...reasons, ...(await checksPass(outcome))];
    },
  },
];
