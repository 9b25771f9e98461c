import { APICallError, generateText } from 'ai';
import type { Config } from '../config/config.ts';
import { checkModel, languageModel } from './models.ts';

type ProbeConfig = Pick<Config, 'anthropicApiKey' | 'openaiApiKey' | 'openaiBaseUrl'>;

/** What one call to the model said: whether it answered, how long the call took, and in words. */
export interface ModelProbe {
  ok: boolean;
  /** Milliseconds from sending the request to its answer (or to the failure or the time limit). */
  ms: number;
  /** `answered`, or what went wrong: the provider's status and message, the network error, or the time limit. */
  detail: string;
  /** When the call was made (epoch milliseconds): a cached result is this old. */
  checkedAt: number;
}

/** A probe waits this long for the answer; a model that takes longer is reported as not answering. */
export const probeTimeoutMs = 10_000;
/** A result is reused this long, so a page that is reloaded does not call the provider each time. */
export const probeCacheMs = 30_000;
const maxCached = 100;
const maxDetail = 300;

const cut = (text: string) => (text.length > maxDetail ? `${text.slice(0, maxDetail - 1)}…` : text);

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs / 1000} s`;
  if (APICallError.isInstance(error)) {
    const cause = error.cause as { code?: string; cause?: { code?: string } } | undefined;
    const code = cause?.code ?? cause?.cause?.code;
    if (error.statusCode !== undefined) return cut(`the provider answered HTTP ${error.statusCode}: ${error.message}`);
    return cut(`the provider could not be reached${code ? ` (${code})` : ''}: ${error.message}`);
  }
  return cut(error instanceof Error ? error.message : String(error));
}

/**
 * Asks the model for a one-token completion, the cheapest call that shows the endpoint, the key and the
 * model id all work. Never retried; bounded by `timeoutMs`. The result never holds a key: only the
 * provider's status and message.
 */
export async function probeModel(value: string, config: ProbeConfig, timeoutMs = probeTimeoutMs): Promise<ModelProbe> {
  const checkedAt = Date.now();
  const problem = checkModel(value, config);
  if (problem) return { ok: false, ms: 0, detail: problem, checkedAt };
  const limit = AbortSignal.timeout(timeoutMs);
  const started = performance.now();
  try {
    await generateText({ model: languageModel(value, config), prompt: 'Reply with OK.', maxOutputTokens: 1, maxRetries: 0, abortSignal: limit });
    return { ok: true, ms: Math.round(performance.now() - started), detail: 'answered', checkedAt };
  } catch (error) {
    return { ok: false, ms: Math.round(performance.now() - started), detail: describeFailure(error, limit.aborted, timeoutMs), checkedAt };
  }
}

/**
 * Probes shared for `probeCacheMs`, per model and endpoint: concurrent callers wait for the same call, and
 * a failure is kept as long as a success, so a provider that is down is not called again on every view.
 */
export class ModelProbes {
  readonly #entries = new Map<string, { expires: number; probe: Promise<ModelProbe> }>();
  readonly #cacheMs: number;
  readonly #timeoutMs: number;

  constructor(options: { cacheMs?: number; timeoutMs?: number } = {}) {
    this.#cacheMs = options.cacheMs ?? probeCacheMs;
    this.#timeoutMs = options.timeoutMs ?? probeTimeoutMs;
  }

  get(value: string, config: ProbeConfig, now = Date.now()): Promise<ModelProbe> {
    // Keys are told apart by whether they are set, never stored: the cache holds no secret.
    const key = JSON.stringify([value, config.openaiBaseUrl ?? null, Boolean(config.openaiApiKey), Boolean(config.anthropicApiKey)]);
    const entry = this.#entries.get(key);
    if (entry && entry.expires > now) return entry.probe;
    this.#entries.delete(key);
    if (this.#entries.size >= maxCached) this.#entries.delete(this.#entries.keys().next().value as string);
    const probe = probeModel(value, config, this.#timeoutMs);
    const added = { expires: now + this.#timeoutMs + this.#cacheMs, probe };
    this.#entries.set(key, added);
    // Kept `cacheMs` from the answer; until then, callers share the call in flight.
    void probe.then((result) => (added.expires = result.checkedAt + result.ms + this.#cacheMs));
    return probe;
  }
}
