/**
 * Whether an address is on the public internet: what a server may connect to when someone else chose
 * the host name (a key directory named in a request), so that name cannot point Quire at itself or at
 * the private network it runs in.
 */
import { addressRanges, inRanges, plainAddress } from './ip-ranges.ts';

// Special-purpose blocks (RFC 6890 and its IPv6 counterparts): this host, private networks, shared
// address space, link-local, documentation, benchmarking, multicast and reserved space.
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
  '::/127',
  '64:ff9b::/96',
  '100::/64',
  '2001:db8::/32',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
]);

export function isPublicAddress(address: string): boolean {
  const plain = plainAddress(address);
  return plain !== undefined && !inRanges(notPublic, plain);
}
