import { loadConfig, localListenerUrl } from '../config/config.ts';
import { trimTrailingSlashes } from '../lib/trim.ts';
import { CliError } from './output.ts';

/**
 * The CLI's HTTP client of the Quire API, from the settings every verb reads: QUIRE_URL, else the server's
 * listener on this machine (HOST and PORT; the CLI's other verbs open the server's database, so it runs
 * where the server does), and QUIRE_API_KEY (an admin key, `quire_…`).
 */
export interface ApiClient {
  url: string;
  /** JSON request; an error answer becomes a CliError with the API's sentence and code. */
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** A raw GET (the event stream); the caller reads the body. */
  open(path: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response>;
}

/** The server could not be reached (a retry may work). */
export class Unreachable extends CliError {}

export function apiClient(environment: NodeJS.ProcessEnv = process.env): ApiClient {
  const config = loadConfig(environment);
  const url = trimTrailingSlashes(config.apiUrl ?? localListenerUrl(config));
  const key = config.apiKey;
  if (!key)
    throw new CliError(
      `Set QUIRE_API_KEY to an admin API key (quire_…; "quire keys create" makes one), and QUIRE_URL if the server is not at ${url} (the server's HOST and PORT).`,
    );
  const authorization = { authorization: `Bearer ${key}` };
  const send = async (path: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${url}${path}`, init);
    } catch (error) {
      throw new Unreachable(
        `Cannot reach Quire at ${url} (${(error as Error).cause ?? (error as Error).message}); start it with "quire serve" or set QUIRE_URL.`,
      );
    }
  };
  return {
    url,
    async request<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
      const response = await send(path, {
        method,
        headers: { ...authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const parsed = text ? (JSON.parse(text) as unknown) : null;
      if (!response.ok) throw answerError(response.status, parsed);
      return parsed as T;
    },
    async open(path, headers, signal) {
      const response = await send(path, { headers: { ...authorization, ...headers }, signal });
      if (!response.ok) throw answerError(response.status, await response.json().catch(() => null));
      return response;
    },
  };
}

function answerError(status: number, body: unknown): CliError {
  const { error, code } = (body ?? {}) as { error?: string; code?: string };
  return new CliError(error ? `${error} (${status} ${code ?? ''})`.replace(' )', ')') : `Quire answered ${status}.`);
}
