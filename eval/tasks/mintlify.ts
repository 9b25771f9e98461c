import { changed, checksPass, contains, lacks, missing, nowhere, onlyChanged } from '../grading.ts';
import { mintlifyNavigation, mintlifyPages, mintlifySite } from '../repositories.ts';
import { read, remove, write, type EvalTask } from '../task.ts';

const site = mintlifySite();

export const mintlifyTasks: EvalTask[] = [
  {
    name: 'mintlify-add-warning-callout',
    framework: 'mintlify',
    files: site,
    prompts: ['On the installation page, add a warning callout that the SDK needs Node.js 20 or later.'],
    solution: [
      {
        steps: [
          [read('installation.mdx')],
          [write('installation.mdx', `${site['installation.mdx']}\n<Warning>\n  The SDK needs Node.js 20 or later.\n</Warning>\n`)],
        ],
        answer: 'Warn that the SDK needs Node.js 20\n\n- installation.mdx: Warning callout',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...contains(outcome.branch, 'installation.mdx', '<Warning>', '</Warning>', 'Node.js 20', 'npm install @acme/sdk'),
      ...onlyChanged(outcome, ['installation.mdx']),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mintlify-add-page-with-navigation',
    framework: 'mintlify',
    files: site,
    prompts: [
      'Add an "Authentication" page under Get started explaining that every request sends the API key in the `Authorization: Bearer` header, and add it to the navigation after the quickstart.',
    ],
    solution: [
      {
        steps: [
          [read('docs.json')],
          [
            write('authentication.mdx', '---\ntitle: Authentication\n---\n\nEvery request sends your API key in the `Authorization: Bearer <key>` header.\n'),
            write('docs.json', mintlifyNavigation({ ...mintlifyPages, start: ['index', 'quickstart', 'authentication', 'installation'] })),
          ],
        ],
        answer: 'Add an authentication page\n\n- authentication.mdx\n- docs.json',
      },
    ],
    grade: async (outcome) => {
      const navigation = outcome.branch?.read('docs.json') ?? '';
      return [
        ...changed(outcome),
        ...contains(outcome.branch, 'authentication.mdx', 'Authorization: Bearer'),
        ...(navigation.indexOf('"authentication"') > navigation.indexOf('"quickstart"') ? [] : ['docs.json does not list authentication after quickstart']),
        ...(await checksPass(outcome)),
      ];
    },
  },
  {
    name: 'mintlify-fix-broken-link',
    framework: 'mintlify',
    files: site,
    prompts: ['The quickstart links to a page that does not exist. Point the link at the installation page.'],
    solution: [
      {
        steps: [[read('quickstart.mdx')], [write('quickstart.mdx', site['quickstart.mdx'].replace('/install-guide', '/installation'))]],
        answer: 'Fix the installation link in the quickstart\n\n- quickstart.mdx',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...lacks(outcome.branch, 'quickstart.mdx', 'install-guide'),
      ...contains(outcome.branch, 'quickstart.mdx', 'installation'),
      ...onlyChanged(outcome, ['quickstart.mdx']),
      ...(await checksPass(outcome)),
    ],
  },
  {
    name: 'mintlify-remove-page',
    framework: 'mintlify',
    files: site,
    prompts: ['Remove the deprecated legacy API page, its navigation entry and every link to it.'],
    solution: [
      {
        steps: [
          [{ name: 'search', arguments: { pattern: 'legacy-api' } }],
          [
            remove('legacy-api.mdx'),
            write('docs.json', mintlifyNavigation({ ...mintlifyPages, reference: ['api/overview'] })),
            write('api/overview.mdx', site['api/overview.mdx'].replace(' The [legacy API](/legacy-api) is deprecated.', '')),
          ],
        ],
        answer: 'Remove the legacy API page\n\n- legacy-api.mdx deleted\n- docs.json and api/overview.mdx no longer point to it',
      },
    ],
    grade: async (outcome) => [
      ...changed(outcome),
      ...missing(outcome.branch, 'legacy-api.mdx'),
      ...nowhere(outcome.branch, 'legacy-api'),
      ...(await checksPass(outcome)),
    ],
  },
];
