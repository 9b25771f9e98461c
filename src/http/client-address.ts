import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { addressRanges, inRanges, plainAddress } from '../lib/ip-ranges.ts';

/** Whatever gives a request's client address; tests pass plain objects. */
export type AddressedRequest = Pick<FastifyRequest, 'socket' | 'headers'>;

/**
 * The address a request came from, as QUIRE_TRUSTED_PROXIES resolves it: the socket's peer, or, when
 * that peer is a trusted reverse proxy, the nearest `X-Forwarded-For` hop that is not one. The header
 * of any other peer is ignored, so a client cannot choose the address it is seen from. Every feature
 * that needs the client's address (API key allowlists, the browser tracker) resolves it here.
 * Mapped IPv4 addresses come back as IPv4; undefined when there is no usable address.
 */
export function clientAddressResolver(trustedProxies: string[]): (request: AddressedRequest) => string | undefined {
  const proxies = addressRanges(trustedProxies);
  const trusted = (address: string) => inRanges(proxies, address);
  return (request) => {
    let address = request.socket.remoteAddress === undefined ? undefined : plainAddress(request.socket.remoteAddress);
    if (address === undefined || !trusted(address)) return address;
    const header = request.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    while (hops.length > 0) {
      address = plainAddress(hops.pop()!);
      // A hop that is not an address means the chain cannot be read any further: use nothing from it.
      if (address === undefined || !trusted(address)) break;
    }
    return address;
  };
}

/**
 * What one client is, for a limit per client: an IPv4 address itself, but the /64 network of an
 * IPv6 address, because one host is usually given a whole /64 and could change address at will.
 */
export function clientNetwork(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const plain = plainAddress(address) ?? address;
  if (isIP(plain) !== 6) return plain;
  const [head, tail] = plain.split('%')[0].split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // A trailing dotted IPv4 part takes two groups; compressed zeros fill the rest of the eight.
  const written = [...groups(head), ...groups(tail)].reduce((count, group) => count + (group.includes('.') ? 2 : 1), 0);
  const expanded = [...groups(head), ...(tail === undefined ? [] : new Array<string>(8 - written).fill('0')), ...groups(tail)];
  return `${expanded
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
