import { startJsonServer, type JsonServer } from './json-server.ts';

export interface MergeRequestRecord {
  iid: number;
  project: string;
  source_branch: string;
  target_branch: string;
  title: string;
  description: string;
  state: 'opened' | 'closed';
}

export interface GitlabServer extends JsonServer {
  mergeRequests: MergeRequestRecord[];
  /** When set, every merge-request call is answered with this status and message. */
  refuse: { status: number; message: string } | null;
}

export interface GitlabServerOptions {
  /** A token that reaches every project. */
  token: string;
  /** Further tokens and the projects (`group/name`) each reaches. */
  projectsOf?: Record<string, string[]>;
  /** The user name `GET /user` answers for a token (default `quire-bot`). */
  usernames?: Record<string, string>;
}

/** GitLab's REST v4 merge-request calls, answered from memory; the token goes in PRIVATE-TOKEN. */
export async function startGitlabServer(options: GitlabServerOptions): Promise<GitlabServer> {
  const mergeRequests: MergeRequestRecord[] = [];
  let base = '';
  const view = (request: MergeRequestRecord) => ({ ...request, id: request.iid + 1000, web_url: `${base}/${request.project}/-/merge_requests/${request.iid}` });

  const self: GitlabServer = Object.assign(
    await startJsonServer((request) => {
      const token = String(request.headers['private-token'] ?? '');
      if (token !== options.token && !options.projectsOf?.[token]) return { status: 401, body: { message: '401 Unauthorized' } };
      if (request.method === 'GET' && request.path === '/api/v4/user')
        return { status: 200, body: { id: 1, username: options.usernames?.[token] ?? 'quire-bot' } };
      const single = /^\/api\/v4\/projects\/([^/]+)$/.exec(request.path);
      if (single && request.method === 'GET') {
        const path = decodeURIComponent(single[1]);
        const reach = options.projectsOf?.[token];
        return !reach || reach.includes(path)
          ? { status: 200, body: { id: 7, path_with_namespace: path } }
          : { status: 404, body: { message: '404 Project Not Found' } };
      }
      const match = /^\/api\/v4\/projects\/([^/]+)\/merge_requests(?:\/(\d+))?$/.exec(request.path);
      if (!match) return { status: 404, body: { message: '404 Not Found' } };
      if (self.refuse) return { status: self.refuse.status, body: { message: self.refuse.message } };
      const project = decodeURIComponent(match[1]);
      const body = request.body as Partial<MergeRequestRecord>;
      if (request.method === 'GET') {
        const source = request.query.get('source_branch');
        const status = request.query.get('state');
        return {
          status: 200,
          body: mergeRequests
            .filter((entry) => entry.project === project && (!source || entry.source_branch === source) && (!status || entry.state === status))
            .map(view),
        };
      }
      if (request.method === 'POST') {
        const created: MergeRequestRecord = {
          iid: mergeRequests.length + 1,
          project,
          source_branch: String(body.source_branch),
          target_branch: String(body.target_branch),
          title: String(body.title),
          description: String(body.description ?? ''),
          state: 'opened',
        };
        mergeRequests.push(created);
        return { status: 201, body: view(created) };
      }
      const existing = mergeRequests.find((entry) => entry.project === project && entry.iid === Number(match[2]));
      if (!existing) return { status: 404, body: { message: '404 Not found' } };
      Object.assign(existing, { title: body.title ?? existing.title, description: body.description ?? existing.description });
      return { status: 200, body: view(existing) };
    }),
    { mergeRequests, refuse: null },
  );
  base = self.url;
  return self;
}
