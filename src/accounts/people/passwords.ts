import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt, Node's built-in memory-hard function, with OWASP's parameters (N = 2^17, r = 8, p = 1):
 * 128 MiB and about a tenth of a second per guess, so a stolen database does not give up passwords
 * cheaply. The parameters are stored with each hash, so raising them later keeps old hashes valid.
 */
const parameters = { N: 2 ** 17, r: 8, p: 1 };
const keyLength = 32;

/** The shortest password accepted: long enough that the rate limit and scrypt make guessing hopeless. */
export const minimumPasswordLength = 12;

function derive(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  // maxmem must exceed 128 * N * r bytes, which Node's 32 MiB default does not.
  const scryptOptions: ScryptOptions = { ...options, maxmem: 256 * options.N * options.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, scryptOptions, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** A sentence saying what is wrong with a new password, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < minimumPasswordLength) return `Choose a password of at least ${minimumPasswordLength} characters; a few words make a good one.`;
  if (password.length > 1000) return 'Choose a password of at most 1,000 characters.';
  return null;
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, parameters);
  return ['scrypt', parameters.N, parameters.r, parameters.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash to check a password against when the account does not exist, so an unknown address takes
 * as long to refuse as a wrong password and the timing does not tell which addresses have accounts.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
