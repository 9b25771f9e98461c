import { afterEach, describe, expect, it } from 'vitest';
import { docsFiles, git } from '../support/git-repositories.ts';
import { scriptedTurns, type ModelScript, type ToolCallReply } from '../support/openai-server.ts';
import { runnerFixture, type RunnerFixture } from './runner-harness.ts';

const mintlify = {
  'docs.json': `${JSON.stringify({ name: 'Acme', navigation: { groups: [{ group: 'Start', pages: ['index', 'quickstart'] }] } }, null, 2)}\n`,
  'index.mdx': '# Acme\n',
  'quickstart.mdx': '# Quickstart\n\nInstall Acme.\n',
};
const mkdocs = docsFiles;
const docusaurus = {
  'docusaurus.config.js': 'module.exports = { title: "Acme" };\n',
  'sidebars.js': "module.exports = {\n  docs: ['intro', 'guide'],\n};\n",
  'docs/intro.md': '# Intro\n',
  'docs/guide.md': '# Guide\n',
};

const write = (path: string, content: string): ToolCallReply => ({ name: 'write_file', arguments: { path, content } });

interface Mistake {
  name: string;
  files: Record<string, string>;
  mistake: ToolCallReply[];
  fix: ToolCallReply[];
  problem: RegExp;
}

const mistakes: Mistake[] = [
  {
    name: 'a broken MDX component (Mintlify)',
    files: mintlify,
    mistake: [write('quickstart.mdx', '# Quickstart\n\n<Steps>\n\nInstall Acme.\n')],
    fix: [write('quickstart.mdx', '# Quickstart\n\n<Steps>\n\nInstall Acme.\n\n</Steps>\n')],
    problem: /^quickstart\.mdx:3: does not compile as MDX: Expected a closing tag for `<Steps>`/m,
  },
  {
    name: 'invalid YAML front matter (MkDocs)',
    files: mkdocs,
    mistake: [write('docs/guide.md', '---\ntitle: Guide: install\n---\n# Guide\n')],
    fix: [write('docs/guide.md', '---\ntitle: "Guide: install"\n---\n# Guide\n')],
    problem: /^docs\/guide\.md:2: front matter is not valid YAML/m,
  },
  {
    name: 'a JSON configuration that does not parse (Mintlify)',
    files: mintlify,
    mistake: [write('docs.json', mintlify['docs.json'].replace('"Acme"', '"Acme Docs"').replace('"quickstart"', '"quickstart",'))],
    fix: [write('docs.json', mintlify['docs.json'].replace('"Acme"', '"Acme Docs"'))],
    problem: /^docs\.json:\d+: is not valid JSON/m,
  },
  {
    name: 'a dead link (MkDocs)',
    files: mkdocs,
    mistake: [write('docs/guide.md', '# Guide\n\nSee [upgrading](upgrade.md).\n')],
    fix: [write('docs/guide.md', '# Guide\n\nSee [the home page](index.md).\n')],
    problem: /^docs\/guide\.md:3: links to `upgrade\.md`, which does not exist/m,
  },
  {
    name: 'a missing image (Docusaurus)',
    files: docusaurus,
    mistake: [write('docs/guide.md', '# Guide\n\n![Architecture](/img/architecture.svg)\n')],
    fix: [write('static/img/architecture.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>\n')],
    problem: /^docs\/guide\.md:3: shows the image `\/img\/architecture\.svg`, which does not exist/m,
  },
  {
    name: 'a navigation entry to a missing page (Mintlify)',
    files: mintlify,
    mistake: [write('docs.json', mintlify['docs.json'].replace('"quickstart"', '"quickstart", "upgrade"'))],
    fix: [write('upgrade.mdx', '# Upgrade\n')],
    problem: /^docs\.json:\d+: the navigation lists `upgrade`, but no such page exists/m,
  },
  {
    name: 'a navigation entry to a missing page (MkDocs)',
    files: mkdocs,
    mistake: [write('mkdocs.yml', `${mkdocs['mkdocs.yml']}  - Upgrade: upgrade.md\n`)],
    fix: [write('docs/upgrade.md', '# Upgrade\n')],
    problem: /^mkdocs\.yml:5: the navigation lists `upgrade\.md`, but no such page exists/m,
  },
  {
    name: 'a navigation entry to a missing page (Docusaurus)',
    files: docusaurus,
    mistake: [write('sidebars.js', docusaurus['sidebars.js'].replace("'guide'", "'guide', 'upgrade'"))],
    fix: [write('docs/upgrade.md', '# Upgrade\n')],
    problem: /^sidebars\.js:2: the navigation lists `upgrade`, but no such page exists/m,
  },
  {
    name: 'a new page missing from the navigation (Mintlify)',
    files: mintlify,
    mistake: [write('faq.mdx', '# FAQ\n')],
    fix: [write('docs.json', mintlify['docs.json'].replace('"quickstart"', '"quickstart", "faq"'))],
    problem: /^faq\.mdx: is a new page that no navigation lists; add it to `docs\.json`/m,
  },
  {
    name: 'a new page missing from the navigation (MkDocs)',
    files: mkdocs,
    mistake: [write('docs/faq.md', '# FAQ\n')],
    fix: [write('mkdocs.yml', `${mkdocs['mkdocs.yml']}  - FAQ: faq.md\n`)],
    problem: /^docs\/faq\.md: is a new page that no navigation lists; add it to `mkdocs\.yml`/m,
  },
  {
    name: 'a new page missing from the navigation (Docusaurus)',
    files: docusaurus,
    mistake: [write('docs/faq.md', '# FAQ\n')],
    fix: [write('sidebars.js', docusaurus['sidebars.js'].replace("'guide'", "'guide', 'faq'"))],
    problem: /^docs\/faq\.md: is a new page that no navigation lists; add it to `sidebars\.js`/m,
  },
];

const repairPrefix = 'Quire checked your change before committing it';

/** Makes the mistake on the request; on a repair request, applies `fix` (or nothing, to play a model that cannot fix it). */
function mistakeThen(mistake: Mistake, repairs: boolean): ModelScript {
  return (request, turn) => {
    const last = String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');
    const repairing = last.startsWith(repairPrefix);
    const calls = repairing ? (repairs ? mistake.fix : []) : mistake.mistake;
    return scriptedTurns(
      calls.length ? [{ text: '', toolCalls: calls }] : [],
      repairing ? 'Update the docs\n\n- fixed what the checks found' : 'Update the docs\n\n- changed the docs',
    )(request, turn);
  };
}

const checkEvents = (fixture: RunnerFixture) =>
  fixture.transcript.filter((entry) => entry.role === 'event' && entry.content.type === 'checks').map((entry) => entry.content);
const repairRequests = (fixture: RunnerFixture) =>
  fixture.model.requests
    .flatMap((request) => request.messages)
    .filter((message) => message.role === 'user' && String(message.content).startsWith(repairPrefix));

describe('checks before committing, with scripted models', () => {
  let fixture: RunnerFixture;
  afterEach(async () => fixture?.close());

  it.each(mistakes)('hands $name back to the model, which fixes it: a ready pull request whose Checks section passed', async (mistake) => {
    fixture = await runnerFixture(mistakeThen(mistake, true), {}, mistake.files);
    const outcome = await fixture.run('Update the docs');
    expect(outcome.prLink).toMatch(/pull\/7$/);
    const events = checkEvents(fixture);
    expect(events.map((event) => [event.round, event.passed])).toEqual([
      [0, false],
      [1, true],
    ]);
    const requests = [...new Set(repairRequests(fixture).map((message) => String(message.content)))];
    expect(requests).toHaveLength(1);
    expect(requests[0].split('\n').filter((line) => mistake.problem.test(line.slice(2)))).toHaveLength(1);
    expect(fixture.host.requests).toEqual([
      expect.objectContaining({
        draft: false,
        body: expect.stringContaining('## Checks\n\nQuire checked the change before committing it; everything passed:'),
      }),
    ]);
    expect(git(fixture.repository, 'rev-list', '--count', 'main..quire/job_01TEST')).toBe('1\n');
  });

  it.each(mistakes.filter((mistake) => mistake.name.startsWith('a new page') || mistake.name === 'a broken MDX component (Mintlify)'))(
    'opens a draft that lists $name when the model does not fix it',
    async (mistake) => {
      fixture = await runnerFixture(mistakeThen(mistake, false), {}, mistake.files);
      const outcome = await fixture.run('Update the docs');
      expect(outcome.prLink).toMatch(/pull\/7$/);
      expect(checkEvents(fixture).map((event) => [event.round, event.passed])).toEqual([
        [0, false],
        [1, false],
        [2, false],
      ]);
      expect(repairRequests(fixture).length).toBeGreaterThanOrEqual(2);
      const [request] = fixture.host.requests;
      expect(request.draft).toBe(true);
      expect(request.body).toMatch(/## Checks\n\n\*\*1 problem remains\*\* after 2 repair rounds, so this pull request is a draft:\n\n- `/);
      const listed = request.body.split('\n').find((line) => line.startsWith('- `'))!;
      expect(listed.replace(/^- `([^`]+)`( line (\d+))?: /, '$1:$3: ').replace(/:: /, ': ')).toMatch(mistake.problem);
    },
  );

  it('follows QUIRE_CHECK_REPAIR_ROUNDS, and with 0 only reports', async () => {
    const [mdx] = mistakes;
    fixture = await runnerFixture(mistakeThen(mdx, false), { checkRepairRounds: 0 }, mdx.files);
    await fixture.run('Update the docs');
    expect(checkEvents(fixture)).toEqual([
      expect.objectContaining({ round: 0, passed: false, problems: [expect.objectContaining({ file: 'quickstart.mdx', line: 3 })] }),
    ]);
    expect(repairRequests(fixture)).toEqual([]);
    expect(fixture.host.requests[0]).toMatchObject({ draft: true, body: expect.stringContaining('after 0 repair rounds') });
  });

  it('checks the whole change again on a follow-up: fixing the problem later leaves a body whose Checks section passed', async () => {
    const newPage = mistakes.find((mistake) => mistake.name === 'a new page missing from the navigation (MkDocs)')!;
    fixture = await runnerFixture(
      (request, turn) => {
        const last = String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');
        if (last === 'Add it to the navigation') return scriptedTurns([{ text: '', toolCalls: newPage.fix }], 'List the FAQ')(request, turn);
        return mistakeThen(newPage, false)(request, turn);
      },
      { checkRepairRounds: 1 },
    );
    const first = await fixture.run('Add an FAQ');
    expect(fixture.host.requests[0].draft).toBe(true);
    await fixture.run('Add it to the navigation', { state: first.state });
    expect(fixture.host.requests[1]).toMatchObject({
      existingNumber: 7,
      body: expect.stringMatching(/\*\*Follow-up: List the FAQ\*\*[\s\S]*## Checks\n\nQuire checked the change before committing it; everything passed/),
    });
    expect(fixture.host.requests[1].body.match(/## Checks/g)).toHaveLength(1);
    const followUp = fixture.model.requests.find((request) => request.messages.some((message) => message.content === 'Add it to the navigation'))!;
    expect(
      followUp.messages.some((message) =>
        String(message.content).includes("(Quire's checks of my change found: docs/faq.md is a new page that no navigation lists"),
      ),
    ).toBe(true);
  });
});
