import { changed, checksPass, contains, lacks, missing, nowhere, onlyChanged, replacedEverywhere } from '../grading.ts';
import { mkdocsSite, nestedMkdocsSite } from '../repositories.ts';
import { move, read, write, type EvalTask } from '../task.ts';

const site = mkdocsSite();
const navWith = (extra: string) => `${site['mkdocs.yml']}${extra}`;
/** The site with guides two folders down, linking up to the root and across to each other. */
const nestedSite = nestedMkdocsSite();

export const mkdocsTasks: EvalTask[] = [
  {
    name: 'mkdocs-add-section',
    framework: 'mkdocs',
    files: site,
    prompts: ['Add a "Troubleshooting" section to the installation page: if `acme-cli init` fails, run `acme-cli doctor` to see what is missing.'],
    solution: [
      {
        steps: [
          [read('docs/setup.md')],
          [
            write(
              'docs/setup.md',
              `${site['docs/setup.md']}\n## Troubleshooting\n\nIf \`acme-cli init\` fails, run \`acme-cli doctor\` to see what is missing.\n`,
            ),
          ],
        ],
        answer: 'Add a troubleshooting section to the installation page\n\n- docs/setup.md: new "Troubleshooting" section.',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...contains(outcome.branch, 'docs/setup.md', '## Troubleshooting', 'acme-cli doctor', '## Requirements'),
      ...onlyChanged(outcome, ['docs/setup.md']),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mkdocs-fix-typo-everywhere',
    framework: 'mkdocs',
    files: site,
    prompts: ['Fix the misspelling "recieve" everywhere in the docs.'],
    solution: [
      {
        steps: [
          [{ name: 'search', arguments: { pattern: 'recieve' } }],
          ['docs/index.md', 'docs/usage.md', 'docs/configuration.md'].map((path) => write(path, site[path].replaceAll('recieve', 'receive'))),
        ],
        answer: 'Fix the spelling of "receive"\n\n- docs/index.md, docs/usage.md, docs/configuration.md',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...replacedEverywhere(outcome, 'recieve', 'receive'),
      ...onlyChanged(outcome, ['docs/index.md', 'docs/usage.md', 'docs/configuration.md']),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mkdocs-add-page-with-navigation',
    framework: 'mkdocs',
    files: site,
    prompts: ['Add an FAQ page with one question, "Where do settings live?", answered from the configuration page, and add it to the navigation.'],
    solution: [
      {
        steps: [
          [read('mkdocs.yml'), read('docs/configuration.md')],
          [
            write('docs/faq.md', '# FAQ\n\n## Where do settings live?\n\nIn `acme.toml`; see [configuration](configuration.md).\n'),
            write('mkdocs.yml', navWith('  - FAQ: faq.md\n')),
          ],
        ],
        answer: 'Add an FAQ page\n\n- docs/faq.md: new page\n- mkdocs.yml: navigation entry',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...contains(outcome.branch, 'docs/faq.md', 'acme.toml'),
      ...contains(outcome.branch, 'mkdocs.yml', 'faq.md'),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mkdocs-rename-page',
    framework: 'mkdocs',
    files: site,
    prompts: ['Rename the page docs/setup.md to docs/installation.md and fix every link and navigation entry that pointed to it.'],
    solution: [
      {
        steps: [
          [{ name: 'search', arguments: { pattern: 'setup\\.md' } }],
          [
            move('docs/setup.md', 'docs/installation.md'),
            write('mkdocs.yml', site['mkdocs.yml'].replace('setup.md', 'installation.md')),
            write('docs/index.md', site['docs/index.md'].replace('(setup.md)', '(installation.md)')),
            write('docs/usage.md', site['docs/usage.md'].replace('(setup.md)', '(installation.md)')),
          ],
        ],
        answer: 'Rename the installation page to installation.md\n\n- moved docs/setup.md\n- fixed links and navigation',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...missing(outcome.branch, 'docs/setup.md'),
      ...contains(outcome.branch, 'docs/installation.md', '# Installation'),
      ...nowhere(outcome.branch, 'setup.md'),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mkdocs-move-nested-page',
    framework: 'mkdocs',
    files: nestedSite,
    prompts: [
      'Move the Kubernetes guide from docs/guides/deploy/kubernetes.md to docs/platforms/kubernetes.md, and fix every link and navigation entry so nothing breaks.',
    ],
    solution: [
      {
        steps: [
          [{ name: 'search', arguments: { pattern: 'kubernetes\\.md' } }, read('docs/guides/deploy/kubernetes.md')],
          [move('docs/guides/deploy/kubernetes.md', 'docs/platforms/kubernetes.md')],
          [
            // One folder up instead of two, and the sibling is now in another folder.
            write(
              'docs/platforms/kubernetes.md',
              nestedSite['docs/guides/deploy/kubernetes.md']!.replace('(../../setup.md)', '(../setup.md)').replace(
                '(docker.md)',
                '(../guides/deploy/docker.md)',
              ),
            ),
            write('docs/guides/deploy/docker.md', nestedSite['docs/guides/deploy/docker.md']!.replace('(kubernetes.md)', '(../../platforms/kubernetes.md)')),
            write('mkdocs.yml', nestedSite['mkdocs.yml']!.replace('guides/deploy/kubernetes.md', 'platforms/kubernetes.md')),
          ],
        ],
        answer:
          'Move the Kubernetes guide to docs/platforms\n\n- moved docs/guides/deploy/kubernetes.md\n- fixed its relative links, the link from the Docker guide and the navigation',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...missing(outcome.branch, 'docs/guides/deploy/kubernetes.md'),
      ...contains(outcome.branch, 'docs/platforms/kubernetes.md', '# Kubernetes'),
      ...contains(outcome.branch, 'mkdocs.yml', 'platforms/kubernetes.md'),
      ...nowhere(outcome.branch, 'guides/deploy/kubernetes.md'),
      // Links are graded by the checks: every relative link must resolve from the page's new folder.
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mkdocs-rename-command',
    framework: 'mkdocs',
    files: site,
    prompts: ['The command-line tool was renamed from `acme-cli` to `acme`. Update every command in the docs; the package name `acme-widgets` stays.'],
    solution: [
      {
        steps: [
          [{ name: 'search', arguments: { pattern: 'acme-cli' } }],
          ['docs/setup.md', 'docs/usage.md', 'docs/configuration.md'].map((path) => write(path, site[path].replaceAll('`acme-cli ', '`acme '))),
        ],
        answer: 'Use the new command name acme\n\n- docs/setup.md, docs/usage.md, docs/configuration.md',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...replacedEverywhere(outcome, '`acme-cli ', '`acme '),
      ...contains(outcome.branch, 'docs/setup.md', 'pip install acme-widgets'),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mkdocs-follow-up-edits',
    framework: 'mkdocs',
    files: site,
    prompts: [
      'Add a changelog page saying that version 1.0 added CSV export, and list it in the navigation.',
      'Also mention in the changelog that version 1.1 added JSON export, above 1.0.',
    ],
    solution: [
      {
        steps: [
          [read('mkdocs.yml')],
          [write('docs/changelog.md', '# Changelog\n\n## 1.0\n\nCSV export.\n'), write('mkdocs.yml', navWith('  - Changelog: changelog.md\n'))],
        ],
        answer: 'Add a changelog page\n\n- docs/changelog.md\n- mkdocs.yml',
      },
      {
        steps: [[read('docs/changelog.md')], [write('docs/changelog.md', '# Changelog\n\n## 1.1\n\nJSON export.\n\n## 1.0\n\nCSV export.\n')]],
        answer: 'Add version 1.1 to the changelog\n\n- docs/changelog.md',
      },
    ],
    grade: async (outcome) => {
      const changelog = outcome.branch?.read('docs/changelog.md') ?? '';
      return [
        ...changed(outcome),
        ...contains(outcome.branch, 'docs/changelog.md', 'CSV', 'JSON', '1.0', '1.1'),
        ...(changelog.indexOf('1.1') > changelog.indexOf('1.0') ? ['1.1 is not above 1.0'] : []),
        ...contains(outcome.branch, 'mkdocs.yml', 'changelog.md'),
        ...(outcome.prLinks[0] !== outcome.prLinks[1] ? ['the follow-up opened another pull request'] : []),
        ...(outcome.branch && outcome.branch.commitsSince(outcome.base) !== 2
          ? [`expected 2 commits, found ${outcome.branch.commitsSince(outcome.base)}`]
          : []),
        ...lacks(outcome.branch, 'mkdocs.yml', 'changelog.md\n  - Changelog'),
        ...(await checksPass(outcome)),
      ];
    },
  },
];
