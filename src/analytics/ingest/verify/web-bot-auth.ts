/**
 * Web Bot Auth: a request signed (RFC 9421, tag `web-bot-auth`) with a key from the directory its
 * `Signature-Agent` names comes from whoever runs that directory. A view claiming an operator of
 * `ip-ranges/index.json` is verified this way only by one of that operator's directories.
 */
import { verify } from 'web-bot-auth';
import { Verification } from '../../model/verification.ts';
import index from './ip-ranges/index.json' with { type: 'json' };
import type { KeyDirectories } from './key-directories.ts';
import { claimedOperator } from './operator-ranges.ts';
import type { PreparedEvent, SignedRequest } from '../../model/prepared-event.ts';
import type { SignatureVerified } from './replays.ts';

const operatorHosts = new Map(index.signatureAgents.map((entry) => [entry.operator, new Set(entry.hosts)]));

/** The directory origin a `Signature-Agent` value names: a quoted URL, alone or as a dictionary member (`sig1="https://…"`). */
export function signatureAgentOrigin(value: string | undefined, allowHttp: boolean): string | null {
  const quoted = /^\s*(?:[a-z*][a-z0-9_.*-]*\s*=\s*)?"([^"]+)"\s*$/i.exec(value ?? '');
  const url = URL.parse(quoted ? quoted[1] : (value ?? '').trim());
  if (url === null || !(url.protocol === 'https:' || (allowHttp && url.protocol === 'http:'))) return null;
  return url.origin;
}

// The signature must cover the authority (so it cannot be moved to another site) and, by the Web Bot
// Auth draft, the Signature-Agent header itself (so it cannot be pointed at another directory).
const coversRequired = (signatureInput: string) => /"@authority"/.test(signatureInput) && /"signature-agent"/i.test(signatureInput);

/**
 * Key directories one batch of events may name: an agent signs with its own, and a tenant's batch naming a
 * directory per event (a wildcard domain pointed at someone else) made Quire fetch thousands of addresses at once.
 */
export const maxDirectoriesPerBatch = 8;

/** Whether the request carries a valid Web Bot Auth signature that speaks for the user agent's claim. */
async function validSignature(directories: KeyDirectories, signed: SignedRequest, userAgent: string, origin: string): Promise<boolean> {
  const { headers } = signed;
  const authority = headers.host ?? headers[':authority'];
  if (authority === undefined || headers.signature === undefined || !coversRequired(headers['signature-input'] ?? '')) return false;
  const claim = userAgent === '' ? null : claimedOperator(userAgent);
  if (claim !== null && !operatorHosts.get(claim.operator)?.has(new URL(origin).hostname)) return false;
  const keys = await directories.keys(origin);
  if (keys === null) return false;
  try {
    await verify({ method: 'GET', url: `https://${authority}${signed.path}`, headers }, (data, signature, params) => {
      const key = keys.get(params.keyid);
      if (key === undefined) throw new Error('the directory has no key with this id');
      return key(data, signature, params);
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Marks the events whose signature checks out as verified; the others keep what their IP ranges said.
 * Returns the events it verified with what they had before, for the replay check (replays.ts).
 */
export async function verifySignatures(directories: KeyDirectories, events: PreparedEvent[]): Promise<SignatureVerified[]> {
  // Most events carry no headers: they cost one filter pass, no promise each.
  const signed = events.filter((event) => event.signed !== null);
  // The first few directories a batch names are fetched; views naming others keep what their IP ranges said.
  const named = new Set<string>();
  const origins = signed.map((event) => {
    const origin = signatureAgentOrigin(event.signed!.headers['signature-agent'], directories.allowPrivate);
    if (origin === null || (!named.has(origin) && named.size >= maxDirectoriesPerBatch)) return null;
    named.add(origin);
    return origin;
  });
  const valid = await Promise.all(
    signed.map((event, index) => origins[index] !== null && validSignature(directories, event.signed!, event.userAgent, origins[index])),
  );
  // In the events' order: of two events presenting one signature, the earlier is its first presenter.
  const verified: SignatureVerified[] = [];
  signed.forEach((event, index) => {
    if (!valid[index]) return;
    verified.push({ event, before: event.verification });
    event.verification = Verification.verified;
  });
  return verified;
}
