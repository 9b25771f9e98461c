/**
 * Refreshes the vendored copy of the ai.robots.txt project's `robots.json`
 * (src/analytics/ingest/agents/ai-robots.json) with the commit it came from, so the analytics
 * classification follows the maintained list. `npm run agents:update` downloads it;
 * `npm run agents:update -- --git-dir <clone>/.git` reads a local clone instead (offline).
 * After a refresh, servers reclassify stored history at their next start.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const repository = 'ai-robots-txt/ai.robots.txt';
const branch = 'main';
const target = new URL('../src/analytics/ingest/agents/', import.meta.url);

interface Snapshot {
  commit: string;
  date: string;
  robots: Record<string, unknown>;
  licence: string;
}

async function download(): Promise<Snapshot> {
  const get = async (url: string) => {
    let response: Response;
    try {
      response = await fetch(url, { headers: { 'user-agent': 'quire-agents-update' }, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new Error(
        `Could not reach ${new URL(url).host} (${(error as Error).message}). Check the network, or pass --git-dir <clone>/.git to read a local clone of https://github.com/${repository}.`,
        { cause: error },
      );
    }
    if (!response.ok) throw new Error(`${url} answered ${response.status}; try again later or pass --git-dir <clone>/.git.`);
    return response;
  };
  const head = (await (await get(`https://api.github.com/repos/${repository}/commits/${branch}`)).json()) as {
    sha: string;
    commit: { committer: { date: string } };
  };
  const raw = `https://raw.githubusercontent.com/${repository}/${head.sha}`;
  const robots = (await (await get(`${raw}/robots.json`)).json()) as Record<string, unknown>;
  const licence = await (await get(`${raw}/LICENSE`)).text();
  return { commit: head.sha, date: head.commit.committer.date, robots, licence };
}

function fromClone(gitDir: string): Snapshot {
  const git = (...args: string[]) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const [commit, date] = git('log', '-1', '--format=%H %cI', 'HEAD').trim().split(' ');
  return { commit, date, robots: JSON.parse(git('show', 'HEAD:robots.json')) as Record<string, unknown>, licence: git('show', 'HEAD:LICENSE') };
}

const gitDirFlag = process.argv.indexOf('--git-dir');
try {
  const snapshot = gitDirFlag >= 0 ? fromClone(process.argv[gitDirFlag + 1]) : await download();
  if (Object.keys(snapshot.robots).length < 50)
    throw new Error(`robots.json at ${snapshot.commit} lists only ${Object.keys(snapshot.robots).length} agents; refusing to replace the vendored list.`);
  const vendored = {
    source: `https://github.com/${repository}/blob/${snapshot.commit}/robots.json`,
    licence: 'MIT, see ai-robots.LICENSE',
    commit: snapshot.commit,
    date: snapshot.date,
    robots: snapshot.robots,
  };
  writeFileSync(new URL('ai-robots.json', target), `${JSON.stringify(vendored, null, 2)}\n`);
  writeFileSync(new URL('ai-robots.LICENSE', target), snapshot.licence);
  process.stdout.write(
    `Vendored ${Object.keys(snapshot.robots).length} agents of ${repository} at ${snapshot.commit.slice(0, 12)} (${snapshot.date}).\nRun the classification tests (npx vitest run test/analytics/agents.test.ts); servers reclassify history at their next start.\n`,
  );
} catch (error) {
  process.stderr.write(`agents:update failed: ${(error as Error).message}\n`);
  process.exit(1);
}
