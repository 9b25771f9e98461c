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
  if (family === 4) return `${address}/${Number(prefix)}`;
  // node:net's BlockList matches an IPv4 client against an IPv6 range as its mapped form (`::ffff:a.b.c.d`).
  // So a range inside ::ffff:0:0/96 (`::ffff:203.0.113.0/120`, `::ffff:cb00:7100/120`) is the IPv4 range it
  // maps (`203.0.113.0/24`), and one that covers the whole of it (`::ffff:203.0.113.0/24`, `::/80`, `::/0`)
  // would match every IPv4 client: an allowlist that allows all, every peer trusted to name the client.
  const mapped = mappedNetwork(address);
  if (mapped !== undefined && Number(prefix) >= 96) return `${mapped}/${Number(prefix) - 96}`;
  const range = new BlockList();
  range.addSubnet(address, Number(prefix), 'ipv6');
  if (range.check('0.0.0.0', 'ipv4')) {
    throw new AddressRangeError(
      `"${text}" covers the IPv4-mapped addresses (::ffff:0:0/96), so it would match every IPv4 client too: ` +
        'give IPv4 ranges on their own (such as 203.0.113.0/24) and IPv6 ranges that leave those out (2000::/3 is all of the public IPv6 Internet).',
    );
  }
  return `${address}/${Number(prefix)}`;
}

/** The IPv4 address an IPv4-mapped IPv6 address stands for, in any spelling (`::ffff:cb00:7100`); undefined for any other. */
function mappedNetwork(address: string): string | undefined {
  // The URL standard writes an IPv6 address in one canonical form, with a mapped address's last 32 bits in hex.
  const canonical = URL.parse(`http://[${address}]/`)?.hostname.slice(1, -1);
  const groups = canonical === undefined ? null : /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!groups) return undefined;
  const [high, low] = [parseInt(groups[1], 16), parseInt(groups[2], 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
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
