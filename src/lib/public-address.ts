/**
 * Whether an address is on the public internet: what a server may connect to when someone else chose
 * the host name (a key directory named in a request), so that name cannot point Quire at itself or at
 * the private network it runs in.
 */
import { addressRanges, inRanges, plainAddress } from './ip-ranges.ts';

// Special-purpose blocks (RFC 6890 and its IPv6 counterparts): this host, private networks, shared
// address space, link-local, documentation, benchmarking, multicast and reserved space. In IPv6 also
// the unspecified and loopback addresses with the deprecated IPv4-compatible block around them
// (`::127.0.0.1`), the translation blocks, and the deprecated site-local block.
const notPublic = addressRanges([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/3',
  '::/96',
  // IPv4-translated addresses (RFC 2765), which a translator sends to the IPv4 address they end with.
  '::ffff:0:0:0/96',
  '64:ff9b::/96',
  // Local-use IPv4/IPv6 translation (RFC 8215): a translator of the private network the server runs in.
  '64:ff9b:1::/48',
  '100::/64',
  '2001:db8::/32',
  'fc00::/7',
  'fec0::/10',
  'fe80::/10',
  'ff00::/8',
]);

const sixToFour = addressRanges(['2002::/16']);

/** The eight 16-bit groups of an IPv6 address written without an embedded IPv4 part. */
function groups(address: string): number[] {
  const [head, tail] = address.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const start = parse(head);
  const end = parse(tail);
  return [...start, ...Array<number>(8 - start.length - end.length).fill(0), ...end];
}

/** The IPv4 address a 6to4 address (`2002:AABB:CCDD::…`) carries, which is where its packets go. */
function sixToFourTarget(address: string): string | undefined {
  if (address.includes('.') || !inRanges(sixToFour, address)) return undefined;
  const [, high, low] = groups(address);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function isPublicAddress(address: string): boolean {
  const plain = plainAddress(address);
  if (plain === undefined || inRanges(notPublic, plain)) return false;
  const embedded = sixToFourTarget(plain);
  return embedded === undefined || !inRanges(notPublic, embedded);
}
