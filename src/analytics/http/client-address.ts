import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** The reverse proxies of QUIRE_TRUSTED_PROXIES (addresses and CIDR ranges, checked by the config). */
export function trustedList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

function trusted(list: BlockList, address: string): boolean {
  const plain = address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return isIP(plain) !== 0 && list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}

/** The client's address: the socket's, or behind trusted proxies the nearest untrusted `X-Forwarded-For` hop. */
export function clientAddress(request: Pick<FastifyRequest, 'socket' | 'headers'>, proxies: BlockList): string | undefined {
  let address = request.socket.remoteAddress;
  if (address === undefined || !trusted(proxies, address)) return address;
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((hop) => hop.trim()).filter(Boolean);
  while (hops.length > 0) {
    address = hops.pop()!;
    if (!trusted(proxies, address)) break;
  }
  return address && isIP(address.replace(/^::ffff:/, '')) ? address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : undefined;
}

/**
 * What one client is, for a limit per client: an IPv4 address itself, but the /64 network of an
 * IPv6 address, because one host is usually given a whole /64 and could change address at will.
 */
export function clientNetwork(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const plain = address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  if (isIP(plain) !== 6) return plain;
  const [head, tail] = plain.split('%')[0].split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // A trailing dotted IPv4 part takes two groups; compressed zeros fill the rest of the eight.
  const written = [...groups(head), ...groups(tail)].reduce((count, group) => count + (group.includes('.') ? 2 : 1), 0);
  const expanded = [...groups(head), ...(tail === undefined ? [] : new Array<string>(8 - written).fill('0')), ...groups(tail)];
  return `${expanded.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}
