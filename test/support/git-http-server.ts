import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBareRepository, docsFiles } from './git-repositories.ts';

export interface GitRequest {
  method: string;
  /** Path and query, such as `/docs.git/info/refs?service=git-upload-pack`. */
  url: string;
  service: 'git-upload-pack' | 'git-receive-pack' | 'other';
  status: number;
  /** Bytes of the response body: what a client downloaded. */
  bytes: number;
  authorization: string | undefined;
}

export interface GitHttpServerOptions {
  /** Credentials the server accepts; pushes always need them. */
  username?: string;
  password?: string;
  /** Whether fetches need the credentials too (a private repository). */
  privateFetch?: boolean;
}

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`; repositories are at `<url>/<name>.git`. */
  url: string;
  /** Folder holding the bare repositories. */
  root: string;
  requests: GitRequest[];
  /** Creates `<name>.git` seeded with a few Markdown files (or `files`) on `main`; returns its URL. */
  createRepository(name: string, files?: Record<string, string>, symlinks?: Record<string, string>): string;
  close(): Promise<void>;
}

const backend = '/usr/lib/git-core/git-http-backend';

/** Git's smart HTTP protocol on 127.0.0.1, served by git's own CGI program as a code host would. */
export async function startGitHttpServer(options: GitHttpServerOptions = {}): Promise<GitHttpServer> {
  const root = mkdtempSync(join(tmpdir(), 'quire-git-http-'));
  const username = options.username ?? 'quire-test';
  const password = options.password ?? 'git-secret-password';
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const requests: GitRequest[] = [];

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const serviceName = url.searchParams.get('service') ?? url.pathname.split('/').pop() ?? '';
    const service = serviceName === 'git-upload-pack' || serviceName === 'git-receive-pack' ? serviceName : 'other';
    const record: GitRequest = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      service,
      status: 0,
      bytes: 0,
      authorization: request.headers.authorization,
    };
    requests.push(record);
    const needsAuth = service === 'git-receive-pack' || options.privateFetch;
    if (needsAuth && request.headers.authorization !== expected) {
      record.status = 401;
      response.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' }).end('Authentication required\n');
      return;
    }
    runBackend(root, url, request, response, record, needsAuth ? username : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  return {
    url: base,
    root,
    requests,
    createRepository(name, files = docsFiles, symlinks = {}) {
      createBareRepository(join(root, `${name}.git`), files, symlinks);
      return `${base}/${name}.git`;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function runBackend(root: string, url: URL, request: IncomingMessage, response: ServerResponse, record: GitRequest, user: string | undefined): void {
  const child = spawn(backend, [], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: String(request.headers['content-encoding'] ?? ''),
      HTTP_GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      REMOTE_ADDR: '127.0.0.1',
      ...(user ? { REMOTE_USER: user } : {}),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      record.bytes += chunk.length;
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const [name, ...rest] = line.split(':');
      const value = rest.join(':').trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    record.status = status;
    response.writeHead(status, headers);
    headersSent = true;
    const body = head.subarray(end + 4);
    record.bytes += body.length;
    response.write(body);
  });
  child.on('close', () => {
    if (!headersSent) response.writeHead(500).end('git-http-backend failed\n');
    else response.end();
  });
}
