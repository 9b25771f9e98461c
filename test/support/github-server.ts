import { verify } from 'node:crypto';
import { startJsonServer, type JsonReply, type JsonServer, type RecordedRequest } from './json-server.ts';

export interface GithubApp {
  appId: string;
  /** PEM public key matching the App's private key: the server checks the JWT signature with it. */
  publicKey: string;
  installationId: number;
  /** Further installations of the App (other GitHub accounts), with the repositories each was given. */
  installations?: Record<number, { account: string; repositories: string[] }>;
}

export interface GithubServerOptions {
  /** Tokens accepted for repository calls (a personal token). */
  tokens?: string[];
  /** The `owner/name` repositories a token reaches (`GET /repos/{owner}/{repo}`); a token not listed reaches every one. */
  tokenRepositories?: Record<string, string[]>;
  /** The login `GET /user` answers for a token (default `octocat`). */
  logins?: Record<string, string>;
  app?: GithubApp;
  /** Where pull-request pages live (`html_url`); defaults to the server itself. */
  htmlUrl?: string;
  /**
   * Merges a pull request in its git repository (`PUT …/pulls/{n}/merge`) with GitHub's `merge_method`,
   * and answers the commit the base branch then points at. Without it, merging is 405.
   */
  merge?: (pull: PullRecord, method: 'merge' | 'squash' | 'rebase') => Promise<string>;
}

export interface PullRecord {
  number: number;
  owner: string;
  repo: string;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged?: boolean;
  mergeCommitSha?: string;
}

export interface GithubServer extends JsonServer {
  pulls: PullRecord[];
  /** Installation tokens handed out to the App. */
  issuedTokens: string[];
  /** When set, every pull-request call is answered with this status and message (403, say). */
  refuse: { status: number; message: string } | null;
  /** When set, every pull request's `html_url` is this (a hostile host's `javascript:` link, say). */
  pullRequestUrl: string | null;
}

/** The GitHub REST calls Quire makes, answered from memory, as GitHub (Enterprise Server) would. */
export async function startGithubServer(options: GithubServerOptions = {}): Promise<GithubServer> {
  const pulls: PullRecord[] = [];
  const issuedTokens: string[] = [];
  let base = '';

  const tokenOf = (request: RecordedRequest) => /^(?:token|bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const validJwt = (request: RecordedRequest) => options.app !== undefined && verifyJwt(tokenOf(request), options.app);
  const unauthorized: JsonReply = { status: 401, body: { message: 'Bad credentials' } };
  const notFound: JsonReply = { status: 404, body: { message: 'Not Found' } };
  const installationOf = new Map<string, number>();
  const installation = (id: number) => (id === options.app?.installationId ? { account: 'acme', repositories: undefined } : options.app?.installations?.[id]);
  const knownToken = (token: string) => (options.tokens ?? []).includes(token) || issuedTokens.includes(token);
  const view = (pull: PullRecord) => ({
    ...pull,
    html_url: self.pullRequestUrl ?? `${options.htmlUrl ?? base}/${pull.owner}/${pull.repo}/pull/${pull.number}`,
    head: { ref: pull.head },
    base: { ref: pull.base },
    merged: pull.merged ?? false,
    merge_commit_sha: pull.mergeCommitSha ?? null,
  });

  const self: GithubServer = Object.assign(
    await startJsonServer((request) => {
      const repoInstallation = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(request.path);
      if (repoInstallation && request.method === 'GET') return validJwt(request) ? { status: 200, body: { id: options.app?.installationId } } : unauthorized;
      const tenancy = tenancyCall(request);
      if (tenancy) return tenancy;
      const tokens = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(request.path);
      if (tokens && request.method === 'POST') {
        if (!validJwt(request)) return unauthorized;
        if (!installation(Number(tokens[1]))) return notFound;
        const token = `ghs_installation${issuedTokens.length + 1}`;
        issuedTokens.push(token);
        installationOf.set(token, Number(tokens[1]));
        return { status: 201, body: { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: {}, repository_selection: 'all' } };
      }
      const merging = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/merge$/.exec(request.path);
      if (merging && request.method === 'PUT') return mergePull(request, merging[1]!, merging[2]!, Number(merging[3]));
      const repository = /^\/repos\/([^/]+)\/([^/]+)\/pulls(?:\/(\d+))?$/.exec(request.path);
      if (!repository) return { status: 404, body: { message: 'Not Found' } };
      const token = tokenOf(request);
      if (!knownToken(token)) return unauthorized;
      if (self.refuse) return { status: self.refuse.status, body: { message: self.refuse.message } };
      const [, owner, repo, number] = repository;
      const body = request.body as Partial<PullRecord>;
      if (request.method === 'GET') {
        const head = request.query.get('head');
        return {
          status: 200,
          body: pulls
            .filter((pull) => pull.owner === owner && pull.repo === repo && (!head || `${owner}:${pull.head}` === head) && pull.state === 'open')
            .map(view),
        };
      }
      if (request.method === 'POST') {
        if (pulls.some((pull) => pull.owner === owner && pull.repo === repo && pull.head === body.head && pull.state === 'open')) {
          return { status: 422, body: { message: 'Validation Failed', errors: [{ message: `A pull request already exists for ${owner}:${body.head}.` }] } };
        }
        const pull: PullRecord = {
          number: pulls.length + 1,
          owner,
          repo,
          head: String(body.head),
          base: String(body.base),
          title: String(body.title),
          body: String(body.body),
          draft: Boolean(body.draft),
          state: 'open',
        };
        pulls.push(pull);
        return { status: 201, body: view(pull) };
      }
      const pull = pulls.find((candidate) => candidate.owner === owner && candidate.repo === repo && candidate.number === Number(number));
      if (!pull) return { status: 404, body: { message: 'Not Found' } };
      Object.assign(pull, { title: body.title ?? pull.title, body: body.body ?? pull.body });
      return { status: 200, body: view(pull) };
    }),
    { pulls, issuedTokens, refuse: null, pullRequestUrl: null },
  );

  /** GitHub's merge of a pull request: 200 with the commit, 405 when it is not open (or the server cannot merge). */
  async function mergePull(request: RecordedRequest, owner: string, repo: string, number: number): Promise<JsonReply> {
    if (!knownToken(tokenOf(request))) return unauthorized;
    const pull = pulls.find((candidate) => candidate.owner === owner && candidate.repo === repo && candidate.number === number);
    if (!pull) return notFound;
    if (pull.state !== 'open' || !options.merge) return { status: 405, body: { message: 'Pull Request is not mergeable' } };
    const method = (request.body.merge_method as 'merge' | 'squash' | 'rebase' | undefined) ?? 'merge';
    const sha = await options.merge(pull, method);
    Object.assign(pull, { state: 'closed', merged: true, mergeCommitSha: sha });
    return { status: 200, body: { sha, merged: true, message: 'Pull Request successfully merged' } };
  }

  /** The calls that decide which repositories an organization's credentials reach. */
  function tenancyCall(request: RecordedRequest): JsonReply | null {
    if (request.method !== 'GET') return null;
    const app = /^\/app\/installations\/(\d+)$/.exec(request.path);
    if (app) {
      if (!validJwt(request)) return unauthorized;
      const found = installation(Number(app[1]));
      return found ? { status: 200, body: { id: Number(app[1]), account: { login: found.account } } } : notFound;
    }
    const token = tokenOf(request);
    if (request.path === '/user')
      return knownToken(token) && !installationOf.has(token) ? { status: 200, body: { login: options.logins?.[token] ?? 'octocat' } } : unauthorized;
    if (request.path === '/installation/repositories') {
      const id = installationOf.get(token);
      if (id === undefined) return unauthorized;
      const repositories = (installation(id)?.repositories ?? []).map((fullName) => ({ full_name: fullName, name: fullName.split('/')[1] }));
      return { status: 200, body: { total_count: repositories.length, repositories } };
    }
    const repository = /^\/repos\/([^/]+)\/([^/]+)$/.exec(request.path);
    if (!repository) return null;
    if (!knownToken(token)) return unauthorized;
    const fullName = `${repository[1]}/${repository[2]}`;
    const reach = installationOf.has(token) ? installation(installationOf.get(token)!)?.repositories : options.tokenRepositories?.[token];
    return !reach || reach.includes(fullName) ? { status: 200, body: { full_name: fullName, name: repository[2], owner: { login: repository[1] } } } : notFound;
  }
  base = self.url;
  return self;
}

/** Checks an App JWT as GitHub does: RS256 signature by the App's key, issuer the App id, not expired. */
function verifyJwt(token: string, app: GithubApp): boolean {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return false;
  const valid = verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), app.publicKey, Buffer.from(signature, 'base64url'));
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: string | number; exp?: number };
  return valid && String(claims.iss) === app.appId && (claims.exp ?? 0) * 1000 > Date.now();
}
