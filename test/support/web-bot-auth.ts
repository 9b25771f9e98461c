/**
 * Web Bot Auth as a bot and its operator do it: an Ed25519 key, a key directory on 127.0.0.1 that
 * publishes it, and the headers of a request signed with it (RFC 9421 through the web-bot-auth package).
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';

export type Jwk = Parameters<typeof signerFromJWK>[0];

export function ed25519Key(): { privateJwk: Jwk; publicJwk: Jwk } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateJwk: privateKey.export({ format: 'jwk' }) as Jwk, publicJwk: publicKey.export({ format: 'jwk' }) as Jwk };
}

/** A key directory on 127.0.0.1 that counts its requests; `keys` is what it publishes. */
export async function directoryServer(keys: () => Jwk[], status = () => 200) {
  const server: Server = createServer((_request, response) => {
    directory.requests++;
    response.writeHead(status(), { 'content-type': 'application/http-message-signatures-directory+json', 'cache-control': 'max-age=60' });
    response.end(JSON.stringify({ keys: keys() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const directory = {
    requests: 0,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
  return directory;
}

export const host = 'docs.example.com';
export const path = '/guides/setup';

/** The headers a bot sends: Signature-Agent naming its directory, covered by a signature made with `key`. */
export async function signedHeaders(key: Jwk, agentOrigin: string, lifetimeMs = 300_000, createdAgoMs = 0): Promise<Record<string, string>> {
  const agent = `"${agentOrigin}"`;
  const created = new Date(Date.now() - createdAgoMs);
  const signature = await signatureHeaders({ method: 'GET', url: `https://${host}${path}`, headers: { 'signature-agent': agent } }, await signerFromJWK(key), {
    created,
    expires: new Date(created.getTime() + lifetimeMs),
  });
  return { host, 'signature-agent': agent, signature: signature.Signature, 'signature-input': signature['Signature-Input'] };
}
