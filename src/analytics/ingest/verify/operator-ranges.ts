/**
 * Verification by published IP ranges: a view whose user agent carries a token of an operator that
 * publishes its crawlers' addresses (`ip-ranges/index.json`) is verified when its IP is inside them
 * and spoofed when it is not. The shipped files are read and compiled once per process, each operator's
 * at the first view that claims it. A client that runs on the user's own machine (a coding agent or
 * developer tool, whose user agent may name the operator's fetcher: `Claude-User (claude-code/…)`)
 * claims no operator: its address is the user's.
 */
import { readFileSync } from 'node:fs';
import type { BlockList } from 'node:net';
import { addressRanges, inRanges, parseAddressRange, plainAddress } from '../../../lib/ip-ranges.ts';
import { Verification } from '../../model/verification.ts';
import { aiAgentOf } from '../agents/agents.ts';
import index from './ip-ranges/index.json' with { type: 'json' };

export interface RangeSource {
  file: string;
  operator: string;
  tokens: string[];
  url: string;
}

export const rangeSources: readonly RangeSource[] = index.sources;
export const rangesDirectory = new URL('./ip-ranges/', import.meta.url);

/** The addresses of one published file: Google's shape, `{"prefixes": [{"ipv4Prefix"}|{"ipv6Prefix"}]}`, which every listed operator uses. */
export function parseRangeFile(text: string): string[] {
  const document = JSON.parse(text) as { prefixes?: unknown };
  if (!Array.isArray(document.prefixes)) throw new Error('it has no "prefixes" list');
  const ranges: string[] = [];
  for (const entry of document.prefixes as Record<string, unknown>[]) {
    for (const key of ['ipv4Prefix', 'ipv6Prefix']) {
      if (typeof entry?.[key] === 'string') ranges.push(parseAddressRange(entry[key]));
    }
  }
  if (ranges.length === 0) throw new Error('its "prefixes" list names no address');
  return ranges;
}

/**
 * An operator's claim, shared by the tokens whose sources are the same files. Its ranges are read and
 * compiled at its first use, so a process compiles only the operators its views claim: compiling them
 * all at once (about 2,700 ranges, the largest files once per token) took about 90 ms, and up to 200 ms
 * on a starting import's reading thread, ahead of its first batch.
 */
class Claim {
  readonly operator: string;
  readonly #files: string[];
  readonly #directory: URL;
  #ranges: BlockList | null | undefined;

  constructor(operator: string, files: string[], directory: URL) {
    this.operator = operator;
    this.#files = files;
    this.#directory = directory;
  }

  /** Null when a source of the claim is not downloaded (or not a range file): its views cannot be judged. */
  get ranges(): BlockList | null {
    if (this.#ranges === undefined) {
      try {
        this.#ranges = addressRanges(this.#files.flatMap((file) => parseRangeFile(readFileSync(new URL(file, this.#directory), 'utf8'))));
      } catch {
        this.#ranges = null;
      }
    }
    return this.#ranges;
  }
}

function compile(directory: URL): { pattern: RegExp; claims: Map<string, Claim> } {
  const filesOf = new Map<string, string[]>();
  const operatorOf = new Map<string, string>();
  for (const source of rangeSources) {
    for (const token of source.tokens.map((name) => name.toLowerCase())) {
      operatorOf.set(token, source.operator);
      filesOf.set(token, [...(filesOf.get(token) ?? []), source.file]);
    }
  }
  const shared = new Map<string, Claim>();
  const claims = new Map<string, Claim>();
  for (const [token, files] of filesOf) {
    const operator = operatorOf.get(token)!;
    const key = `${operator}\n${files.join('\n')}`;
    if (!shared.has(key)) shared.set(key, new Claim(operator, files, directory));
    claims.set(token, shared.get(key)!);
  }
  // Longest first, so a token that contains another is the one found.
  const tokens = [...claims.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(tokens.map((token) => token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');
  return { pattern, claims };
}

let compiled: ReturnType<typeof compile> | undefined;
const claimCache = new Map<string, Claim | null>();
const claimCacheLimit = 50_000;

/** Reads the range files again (after `update-ip-ranges`, or another directory in tests). */
export function loadOperatorRanges(directory: URL = rangesDirectory): void {
  compiled = compile(directory);
  claimCache.clear();
}

const runsOnUsersMachine = (userAgent: string) => aiAgentOf(userAgent)?.category === 'coding';

/**
 * Loopback, private, shared and link-local addresses: no operator's crawler comes from one, so a view
 * from one reached Quire through a proxy or a local client that did not pass on the client's address,
 * and says nothing about who sent it.
 */
const localNetworks = addressRanges([
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
]);

/** The operator a user agent claims to be, by the tokens of the index; cached, as a site sees few distinct agents. */
export function claimedOperator(userAgent: string): Claim | null {
  let claim = claimCache.get(userAgent);
  if (claim === undefined) {
    compiled ??= compile(rangesDirectory);
    const token = runsOnUsersMachine(userAgent) ? undefined : compiled.pattern.exec(userAgent)?.[0].toLowerCase();
    claim = token === undefined ? null : compiled.claims.get(token)!;
    if (claimCache.size >= claimCacheLimit) claimCache.clear();
    claimCache.set(userAgent, claim);
  }
  return claim;
}

/** Verified or spoofed for a claim the ranges can judge; unknown without a claim, a public IP or downloaded ranges. */
export function rangeVerification(userAgent: string, ip: string | undefined): Verification {
  const claim = userAgent === '' ? null : claimedOperator(userAgent);
  if (claim === null || claim.ranges === null || ip === undefined) return Verification.unknown;
  const address = plainAddress(ip) ?? ip;
  if (inRanges(localNetworks, address)) return Verification.unknown;
  return inRanges(claim.ranges, address) ? Verification.verified : Verification.spoofed;
}
