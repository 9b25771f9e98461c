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

/** A URL that may hold a password (`postgres://user:password@host/db`): everything but the password shown. */
export const hiddenPassword: Mask = (raw) => {
  try {
    const address = new URL(raw);
    if (address.password) address.password = '****';
    return address.toString();
  } catch {
    return hidden(raw);
  }
};

export const text: Parser<string> = (raw) => raw;
export const optionalText: Parser<string | undefined> = (raw) => raw || undefined;

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
    throw new ConfigError(`${name} must be an absolute URL such as https://docs.example.com, got "${raw}".`);
  }
}

export function optionalUrl(raw: string, name: string): string | undefined {
  return raw ? url(raw, name) : undefined;
}

/** PEM text, with `\\n` escapes as some secret stores need, or the path of a PEM file. */
export function privateKey(raw: string, name: string): string | undefined {
  if (!raw) return undefined;
  if (raw.includes('-----BEGIN')) return raw.replace(/\\n/g, '\n');
  try {
    return readFileSync(raw, 'utf8');
  } catch {
    throw new ConfigError(`${name} must be a PEM private key or the path of a readable .pem file; cannot read "${raw}".`);
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
