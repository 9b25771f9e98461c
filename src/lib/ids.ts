import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Bytes of the system's secure generator, drawn 4 KiB at a time, for the ULIDs' random characters. */
const entropy = { bytes: Buffer.alloc(0), next: 0 };

/**
 * A uniform fraction in [0, 1) from one secure random byte, as ulid's own generator gives: that one asks
 * webcrypto for a byte per character, sixteen calls per id (about 74 µs per id, where ids are made per
 * request: an assistant turn, an event), where this draws from bytes taken 4 KiB at a time (about 3 µs).
 */
function randomFraction(): number {
  if (entropy.next === entropy.bytes.length) {
    entropy.bytes = randomBytes(4096);
    entropy.next = 0;
  }
  return entropy.bytes[entropy.next++]! / 256;
}

const nextUlid = monotonicFactory(randomFraction);

export type IdPrefix = 'org' | 'prj' | 'key' | 'job' | 'run' | 'wrk' | 'ses' | 'con' | 'fbk' | 'whk' | 'msg' | 'per' | 'inv' | 'trn' | 'mcs';

/** Opaque, sortable identifiers: a type prefix and a ULID (`job_01JD…`). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

const idPattern = /^(org|prj|key|job|run|wrk|ses|con|fbk|whk|msg|per|inv|trn|mcs)_[0-9A-HJKMNP-TV-Z]{26}$/;

export function isId(value: string, prefix: IdPrefix): boolean {
  return idPattern.test(value) && value.startsWith(`${prefix}_`);
}

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text (rejection sampling, so no character is more likely than another). */
export function randomBase62(length: number): string {
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && result.length < length) result += base62[byte % 62];
    }
  }
  return result;
}
