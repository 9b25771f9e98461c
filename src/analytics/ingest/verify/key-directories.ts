/**
 * Web Bot Auth key directories (`/.well-known/http-message-signatures-directory`), fetched on demand
 * and cached for as long as their Cache-Control allows. The host is named by the request being
 * verified, so it must resolve to public addresses only (unless the setting allows private ones), and
 * every failure just means "no keys": the view stays unverified, the event is still stored.
 */
import { lookup, type LookupAddress } from 'node:dns';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { HTTP_MESSAGE_SIGNATURES_DIRECTORY, helpers, jwkToKeyID, type VerificationParams } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';
import { isPublicAddress } from '../../../lib/public-address.ts';

type KeyVerifier = (data: string, signature: Uint8Array, params: VerificationParams) => void | Promise<void>;
/** A directory's keys by key id (the JWK thumbprint a signature names). */
type DirectoryKeys = Map<string, KeyVerifier>;

export interface DirectoryOptions {
  /** Allow directories on loopback and private addresses, and over plain http (tests, closed networks). */
  allowPrivate: boolean;
  timeoutMs: number;
  maxEntries?: number;
}

const maxBodyBytes = 65_536;
const maxKeys = 32;
const defaultTtlMs = 5 * 60_000;
const maxTtlMs = 24 * 60 * 60_000;
const failureTtlMs = 60_000;

/** How long an answer may be reused: `max-age`, none for `no-store`/`no-cache`, five minutes when it does not say. */
export function cacheLifetime(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return defaultTtlMs;
  if (/\b(no-store|no-cache)\b/i.test(cacheControl)) return 0;
  const maxAge = /\bmax-age\s*=\s*"?(\d+)/i.exec(cacheControl);
  return maxAge ? Math.min(Number(maxAge[1]) * 1000, maxTtlMs) : defaultTtlMs;
}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (!allowPrivate && addresses.some((entry) => !isPublicAddress(entry.address)))
        return callback(new Error(`${hostname} resolves to a private address`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
}

function download(url: URL, options: DirectoryOptions): Promise<{ body: string; ttlMs: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && (url.protocol !== 'https:' || (isIP(host) !== 0 && !isPublicAddress(host)))) {
    return Promise.reject(new Error('directories must be https on public addresses'));
  }
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const request = get(
      url,
      {
        lookup: guardedLookup(options.allowPrivate),
        signal: AbortSignal.timeout(options.timeoutMs),
        headers: { accept: 'application/http-message-signatures-directory+json, application/json' },
      },
      (response: IncomingMessage) => {
        if (response.statusCode !== 200) {
          response.resume();
          return reject(new Error(`the directory answered ${response.statusCode}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBodyBytes) request.destroy(new Error('the directory is too large'));
          else chunks.push(chunk);
        });
        response.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), ttlMs: cacheLifetime(response.headers['cache-control']) }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

async function parseDirectory(body: string): Promise<DirectoryKeys> {
  const document = JSON.parse(body) as { keys?: unknown };
  if (!Array.isArray(document.keys)) throw new Error('the directory has no "keys" list');
  const keys: DirectoryKeys = new Map();
  for (const jwk of document.keys.slice(0, maxKeys) as Parameters<typeof verifierFromJWK>[0][]) {
    try {
      keys.set(await jwkToKeyID(jwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE), await verifierFromJWK(jwk));
    } catch {
      // A key of a kind this verifier does not know cannot sign anything it accepts; the others still can.
    }
  }
  return keys;
}

/** Directory downloads at once in a process, all batches together: each is a DNS lookup and a connection to a host a client named. */
const maxDownloads = 16;

/** One process's cache of key directories, bounded; concurrent requests for one directory share a fetch. */
export class KeyDirectories {
  readonly #entries = new Map<string, { keys: DirectoryKeys | null; expires: number }>();
  readonly #loading = new Map<string, Promise<DirectoryKeys | null>>();
  readonly #options: DirectoryOptions;
  /** Downloads under way, and those waiting for one to end (`maxDownloads`). */
  #downloading = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: DirectoryOptions) {
    this.#options = options;
  }

  /** Whether directories may be on private addresses and plain http (see DirectoryOptions). */
  get allowPrivate(): boolean {
    return this.#options.allowPrivate;
  }

  /** The keys of the directory at `origin`, or null when it cannot be had (the failure is remembered for a minute). */
  async keys(origin: string): Promise<DirectoryKeys | null> {
    const entry = this.#entries.get(origin);
    if (entry && entry.expires > Date.now()) return entry.keys;
    let loading = this.#loading.get(origin);
    if (loading === undefined) {
      loading = this.#load(origin).finally(() => this.#loading.delete(origin));
      this.#loading.set(origin, loading);
    }
    return loading;
  }

  /** Waits for one of `maxDownloads` download slots; returns how to give it back. */
  async #downloadSlot(): Promise<() => void> {
    if (this.#downloading >= maxDownloads) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#downloading++;
    return () => {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#downloading--;
    };
  }

  async #load(origin: string): Promise<DirectoryKeys | null> {
    let keys: DirectoryKeys | null = null;
    let ttlMs = failureTtlMs;
    const release = await this.#downloadSlot();
    try {
      const answer = await download(new URL(HTTP_MESSAGE_SIGNATURES_DIRECTORY, origin), this.#options);
      keys = await parseDirectory(answer.body);
      ttlMs = answer.ttlMs;
    } catch {
      // Unreachable, private, slow, not a directory: no keys, and the view keeps what its IP said.
    } finally {
      release();
    }
    this.#entries.delete(origin);
    if (ttlMs > 0) {
      if (this.#entries.size >= (this.#options.maxEntries ?? 1000)) this.#entries.delete(this.#entries.keys().next().value as string);
      this.#entries.set(origin, { keys, expires: Date.now() + ttlMs });
    }
    return keys;
  }
}
