/**
 * IP addresses and CIDR ranges as people write them (`203.0.113.0/24`, `2001:db8::/32`, `::1`),
 * checked in one place and matched with node:net's BlockList, which also matches an IPv4-mapped IPv6
 * address (`::ffff:203.0.113.7`, how a dual-stack socket reports an IPv4 peer) against IPv4 ranges.
 */
import { BlockList, isIP } from 'node:net';

/** An entry that is not an address or range; the message says what is wrong with it. */
export class AddressRangeError extends Error {}

const mappedIpv4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The address in the form people read: `::ffff:203.0.113.7` as `203.0.113.7`; undefined when it is not an IP address. */
export function plainAddress(address: string): string | undefined {
  const plain = address.replace(mappedIpv4, '$1');
  return isIP(plain) === 0 ? undefined : plain;
}

/** One address or CIDR range, trimmed (an IPv4-mapped address as IPv4); throws AddressRangeError when it is neither. */
export function parseAddressRange(entry: string): string {
  const text = entry.trim();
  const [address, prefix, extra] = text.split('/');
  const plain = plainAddress(address);
  if (plain === undefined || extra !== undefined || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
    throw new AddressRangeError(`"${text}" is not an IP address or CIDR range such as 203.0.113.0/24 or 2001:db8::/32.`);
  }
  if (prefix === undefined) return plain;
  const family = isIP(address);
  const maximum = family === 4 ? 32 : 128;
  if (Number(prefix) > maximum) throw new AddressRangeError(`"${text}": an IPv${family} range's prefix length is 0 to ${maximum}.`);
  // `::ffff:203.0.113.0/120` is `203.0.113.0/24`. Kept as an IPv6 range, a shorter prefix than 96 covers
  // the zero bits every IPv4-mapped address starts with: `::ffff:203.0.113.0/24` matched every IPv4 client.
  if (plain !== address) {
    if (Number(prefix) < 96) {
      throw new AddressRangeError(`"${text}": an IPv4-mapped range's prefix length is 96 to 128; give the IPv4 range itself, such as 203.0.113.0/24.`);
    }
    return `${plain}/${Number(prefix) - 96}`;
  }
  return `${address}/${Number(prefix)}`;
}

/** A comma- or space-separated list of at least one address or range. */
export function parseAddressRanges(list: string): string[] {
  const entries = list.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) throw new AddressRangeError('Give at least one IP address or CIDR range, such as 203.0.113.0/24 or 2001:db8::/32.');
  return [...new Set(entries.map(parseAddressRange))];
}

/** Entries already checked by `parseAddressRange`, ready for `inRanges`. */
export function addressRanges(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

export function inRanges(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}
