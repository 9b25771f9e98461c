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
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((hop) => hop.trim()).filter(Boolean);
    while (hops.length > 0) {
      address = plainAddress(hops.pop()!);
      // A hop that is not an address means the chain cannot be read any further: use nothing from it.
      if (address === undefined || !trusted(address)) break;
    }
    return address;
  };
}
