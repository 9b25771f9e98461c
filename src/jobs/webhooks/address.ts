/**
 * Where a webhook may be sent. The URL is chosen by whoever holds a write key, so it must not point
 * Quire at itself or at the network it runs in: the host is resolved, and every address it resolves
 * to must be public (unless the operator allows private ones). Delivery connects to the very address
 * checked here, so a name that resolves differently a moment later (DNS rebinding) changes nothing.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from '../../lib/public-address.ts';

export interface VettedAddress {
  address: string;
  family: 4 | 6;
}

/** A URL or address that may not be used; the message says what to change. */
export class WebhookAddressError extends Error {}

const maxUrlLength = 2000;

/** The URL as Quire stores it, or a WebhookAddressError saying what is wrong with it. */
export function parseEndpointUrl(text: string): URL {
  const url = text.length <= maxUrlLength ? URL.parse(text) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new WebhookAddressError('The webhook URL must be an absolute http or https URL such as https://example.com/hooks/quire.');
  if (url.username || url.password)
    throw new WebhookAddressError('The webhook URL must not carry a user name or password; put a token in its path or query instead.');
  return url;
}

/** Resolves the URL's host and returns the address to connect to, refusing non-public ones unless `allowPrivate`. */
export async function vetEndpoint(url: URL, allowPrivate: boolean): Promise<VettedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new WebhookAddressError(`The webhook host ${host} could not be resolved; check the name, or its DNS records.`);
    }
  }
  if (addresses.length === 0) throw new WebhookAddressError(`The webhook host ${host} has no addresses.`);
  // Every address, not only the first: a name with one public and one private address is refused.
  const refused = allowPrivate ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
  if (refused) {
    throw new WebhookAddressError(
      `The webhook host ${host} resolves to ${refused.address}, a loopback, private, link-local or otherwise non-public address, which Quire does not send to. Use a public address (the operator may allow private ones with QUIRE_WEBHOOKS_ALLOW_PRIVATE=true).`,
    );
  }
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}
