import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { secretBox } from '../../accounts/secrets.ts';
import type { Config } from '../../config/config.ts';

type SecretKeys = Pick<Config, 'secretKey' | 'secretKeyPrevious'>;

const prefix = 'whsec_';

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `${prefix}${randomBytes(32).toString('base64')}`;
}

/**
 * How a secret is kept: sealed with QUIRE_SECRET_KEY (AES-256-GCM) when one is set. Without a key it
 * is stored as it is: it must stay readable to sign with, and the API never shows it again.
 */
export function storedSecret(config: SecretKeys, secret: string): string {
  return config.secretKey ? secretBox(config).seal(secret) : secret;
}

export function openSecret(config: SecretKeys, stored: string): string {
  return stored.startsWith(prefix) ? stored : secretBox(config).open(stored);
}

/**
 * The Standard Webhooks headers of one attempt. During a rotation's grace period both the new and
 * the previous secret sign (space-separated `v1,…` signatures), so receivers can switch at their pace.
 */
export function signedHeaders(secrets: string[], messageId: string, timestamp: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' '),
  };
}
