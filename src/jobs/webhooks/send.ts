import { Agent, request } from 'undici';
import { parseEndpointUrl, vetEndpoint, WebhookAddressError, type VettedAddress } from './address.ts';

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  agents: PinnedAgents;
}

/** What one attempt got: a status code, or the error that kept it from getting one. */
export interface AttemptOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first bytes of the answer (kept short: an endpoint's answer is not Quire's to store). */
  excerpt: string | null;
}

const excerptBytes = 512;

/** An agent that connects only to `vetted`, whatever the name resolves to now; TLS still checks the name. */
function pinnedAgent(vetted: VettedAddress, timeoutMs: number): Agent {
  return new Agent({
    connections: 8,
    keepAliveTimeout: 30_000,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: {
      lookup: (_hostname, options, callback) => {
        if ((options as { all?: boolean }).all) (callback as (error: null, all: VettedAddress[]) => void)(null, [vetted]);
        else callback(null, vetted.address, vetted.family);
      },
    },
  });
}

/**
 * Kept-alive connections per endpoint origin and vetted address: an endpoint that gets many
 * deliveries reuses its connections, and a host that now resolves elsewhere gets a new agent pinned
 * to the new (vetted) address, never an old connection's.
 */
export class PinnedAgents {
  readonly #agents = new Map<string, { agent: Agent; usedAt: number }>();
  readonly #maxAgents: number;

  constructor(maxAgents = 256) {
    this.#maxAgents = maxAgents;
  }

  get(origin: string, vetted: VettedAddress, timeoutMs: number): Agent {
    const key = `${origin} ${vetted.address}`;
    let entry = this.#agents.get(key);
    if (!entry) {
      if (this.#agents.size >= this.#maxAgents) this.#evict();
      entry = { agent: pinnedAgent(vetted, timeoutMs), usedAt: 0 };
      this.#agents.set(key, entry);
    }
    entry.usedAt = Date.now();
    return entry.agent;
  }

  /** Closes the least recently used agent (its requests in flight finish first). */
  #evict(): void {
    const [key, oldest] = [...this.#agents].reduce((least, candidate) => (candidate[1].usedAt < least[1].usedAt ? candidate : least));
    this.#agents.delete(key);
    oldest.agent.close().catch(() => {});
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((entry) => entry.agent.close().catch(() => {})));
  }
}

async function readExcerpt(body: AsyncIterable<Buffer>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream: the rest of a large answer is never read.
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= excerptBytes) break;
  }
  const text = Buffer.concat(chunks).subarray(0, excerptBytes).toString('utf8');
  return text === '' ? null : text;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof WebhookAddressError) return error.message;
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (error as Error).name === 'TimeoutError')
    return `The endpoint did not answer within ${timeoutMs} ms.`;
  if (code === 'ECONNREFUSED') return 'The endpoint refused the connection (nothing listens on that port).';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'The endpoint closed the connection before answering.';
  if ((typeof code === 'string' && code.startsWith('ERR_TLS')) || /certificate/i.test((error as Error).message ?? ''))
    return `The endpoint's TLS certificate was not accepted: ${(error as Error).message}`;
  return `The request failed: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Posts `body` to `url` once: the host is checked again at every attempt, redirects are not followed
 * (a 3xx is a failed attempt), and the whole attempt is bounded by the timeout.
 */
export async function sendOnce(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const target = parseEndpointUrl(url);
    const agent = options.agents.get(target.origin, await vetEndpoint(target, options.allowPrivate), options.timeoutMs);
    const response = await request(target, {
      method: 'POST',
      dispatcher: agent,
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Quire-Webhooks/1' },
      body,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const excerpt = await readExcerpt(response.body).catch(() => null);
    return { statusCode: response.statusCode, durationMs: elapsed(), error: null, excerpt };
  } catch (error) {
    return { statusCode: null, durationMs: elapsed(), error: describeFailure(error, options.timeoutMs), excerpt: null };
  }
}
