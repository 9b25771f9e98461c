import { readFileSync } from 'node:fs';
import { AddressRangeError, parseAddressRanges } from '../lib/ip-ranges.ts';
import { parseModel } from './model-name.ts';

/** How each setting's text is read; a parser throws a ConfigError that says how to fix the value. */

export type Parser<T> = (raw: string, name: string) => T;

/** How `quire config` shows a secret setting's value: never the secret itself. */
export type Mask = (raw: string) => string;

export interface Setting<T> {
  env: string;
  default: T;
  parse: Parser<T>;
  description: string;
  mask?: Mask;
}

export class ConfigError extends Error {}

export function setting<T>(env: string, defaultValue: T, parse: Parser<T>, description: string, mask?: Mask): Setting<T> {
  return { env, default: defaultValue, parse, description, ...(mask ? { mask } : {}) };
}

/** A secret: shown as stars whatever its length. */
export const hidden: Mask = (raw) => (raw === '' ? '' : '****');

/**
 * Query parameters that carry a credential: `password` and `sslpassword`, which pg reads from a
 * DATABASE_URL, and the tokens, keys and signatures a gateway or proxy URL may take. pg's `sslkey`
 * and `sslcert` name files, so they are shown.
 */
const credentialParameter = /pass|pwd|secret|token|signature|credential|^sig$|^auth|^(api|access|private)?[-_]?key$/i;

/** `address` with the values of its credential query parameters as stars, the rest of the query as written. */
function withoutCredentialParameters(address: URL): void {
  if (!address.search) return;
  address.search = address.search
    .slice(1)
    .split('&')
    .map((pair) => {
      const name = [...new URLSearchParams(pair).keys()][0] ?? '';
      return credentialParameter.test(name) ? `${pair.split('=', 1)[0]}=****` : pair;
    })
    .join('&');
}

/**
 * A database URL (`postgres://user:password@host/db?sslpassword=…`): everything but its passwords
 * shown, so the user, host and database stay visible. Text that is no URL is hidden whole.
 */
export const hiddenPassword: Mask = (raw) => {
  try {
    const address = new URL(raw);
    if (address.password) address.password = '****';
    withoutCredentialParameters(address);
    return address.toString();
  } catch {
    return hidden(raw);
  }
};

/**
 * Any other URL: its user part is hidden too, since a token is often given as the user name alone
 * (`https://TOKEN@host`), and no URL setting needs a user to be read.
 */
export const hiddenCredentials: Mask = (raw) => {
  try {
    const address = new URL(raw);
    if (address.username) address.username = '****';
    if (address.password) address.password = '****';
    withoutCredentialParameters(address);
    return address.toString();
  } catch {
    return hidden(raw);
  }
};

export const text: Parser<string> = (raw) => raw;
export const optionalText: Parser<string | undefined> = (raw) => raw || undefined;

/**
 * The longest wait Node's timers take: a longer `setTimeout` or `setInterval` fires after 1 ms and a
 * longer `AbortSignal.timeout` aborts at once, so a setting that becomes a timer is refused above it.
 * PostgreSQL's statement_timeout has the same limit.
 */
export const longestTimerMs = 2_147_483_647;
/** The same limit for a setting in seconds. */
export const longestTimerSeconds = Math.floor(longestTimerMs / 1000);

export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw, name) => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
    }
    return value;
  };
}

export function boolean(raw: string, name: string): boolean {
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off', ''].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}".`);
}

export function url(raw: string, name: string): string {
  try {
    return new URL(raw).toString().replace(/\/$/, '');
  } catch {
    // A URL may hold a password (user part, query): the message says what is wrong without the value.
    const wrong = raw.includes('://') ? 'its value is not one' : 'its value has no scheme such as https://';
    throw new ConfigError(`${name} must be an absolute URL such as https://docs.example.com; ${wrong} (not repeated here, as a URL may hold a password).`);
  }
}

export function optionalUrl(raw: string, name: string): string | undefined {
  return raw ? url(raw, name) : undefined;
}

/**
 * PEM text, with `\\n` escapes as some secret stores need, or the path of a PEM file. The message of
 * a bad value never repeats it: it may be the key itself, missing its PEM lines.
 */
export function privateKey(raw: string, name: string): string | undefined {
  if (!raw) return undefined;
  if (raw.includes('-----BEGIN')) return raw.replace(/\\n/g, '\n');
  try {
    return readFileSync(raw, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `${name} is neither a PEM private key (its text has no -----BEGIN line) nor the path of a readable file${code ? ` (${code})` : ''}. Set it to the whole PEM text, from -----BEGIN to -----END (\\n escapes allowed), or to the path of the .pem file; its value is not repeated here, as it may be the key.`,
    );
  }
}

/** A 32-byte AES key written in base64 (`openssl rand -base64 32`). */
export function secretKey(raw: string, name: string): Buffer | undefined {
  if (!raw) return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64') !== raw.trim()) {
    throw new ConfigError(`${name} must be 32 random bytes written in base64 (make one with "openssl rand -base64 32"); got ${key.length} bytes.`);
  }
  return key;
}

export function addressList(raw: string, name: string): string[] {
  if (raw.trim() === '') return [];
  try {
    return parseAddressRanges(raw);
  } catch (error) {
    if (error instanceof AddressRangeError) throw new ConfigError(`${name} must list IP addresses or CIDR ranges such as 10.0.0.0/8,::1; ${error.message}`);
    throw error;
  }
}

/** A comma list of `provider:model` names (QUIRE_ALLOWED_MODELS). */
export function modelList(raw: string, name: string): string[] {
  const models = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const model of models) {
    const choice = parseModel(model);
    if ('problem' in choice) throw new ConfigError(`${name}: ${choice.problem}`);
  }
  return models;
}
