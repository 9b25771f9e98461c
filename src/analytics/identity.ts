import { createHmac } from 'node:crypto';

/**
 * The key a visitor is counted by: an HMAC with the project's secret, so the stored value reveals
 * neither the IP address nor the tracker's id, and the same person has unrelated keys in two projects.
 * The tracker's random id wins when present; otherwise the IP address and user agent identify a visitor.
 */
export function visitorHash(secret: string, event: { visitorId?: string; ip?: string; userAgent?: string }): string {
  const hmac = createHmac('sha256', secret);
  if (event.visitorId !== undefined) hmac.update(`id\n${event.visitorId}`);
  else hmac.update(`ip\n${event.ip ?? ''}\n${event.userAgent ?? ''}`);
  // 128 bits: collisions among billions of visitors stay improbable, and the key stays short.
  return hmac.digest('base64url').slice(0, 22);
}
