import { isIP } from 'node:net';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import { publicUrl, type Config } from '../../config/config.ts';
import { randomBase62 } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { PasskeyRow, PersonRow } from '../../storage/tables/people.ts';

/** A ceremony must finish within this time. */
const challengeMinutes = 5;

export interface RelyingParty {
  /** The host name passkeys are bound to. */
  id: string;
  /** The only page origin whose answers are accepted. */
  origin: string;
}

/**
 * Passkeys are bound to QUIRE_PUBLIC_URL (else http://HOST:PORT): its host name is the relying-party
 * id and its origin the only accepted origin. Browsers refuse an IP address as the id, so with one
 * there are no passkeys and the pages say which setting to change.
 */
export function relyingParty(config: Config): RelyingParty | null {
  const url = new URL(publicUrl(config));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return null;
  return { id: host, origin: url.origin };
}

/** Why there are no passkeys, with the setting to change; `localhost` reaches the server on its own port from the same machine. */
export function passkeysUnavailable(config: Config): string {
  return `Passkeys need a host name, and Quire's address is ${publicUrl(config)}: set QUIRE_PUBLIC_URL to the address people open (http://localhost:${config.port} on this machine, or your https address) and restart Quire.`;
}

async function storeChallenge(db: Kysely<Database>, challenge: string, purpose: string, now = Date.now()): Promise<string> {
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
  const id = randomBase62(32);
  await db
    .insertInto('webauthn_challenges')
    .values({ id, challenge, purpose, expires_at: now + challengeMinutes * 60_000 })
    .execute();
  return id;
}

/** Takes a challenge once: a replayed answer finds nothing. */
async function takeChallenge(db: Kysely<Database>, id: string, purpose: string, now = Date.now()): Promise<string | undefined> {
  if (!/^[0-9A-Za-z]{32}$/.test(id)) return undefined;
  const row = await db.selectFrom('webauthn_challenges').selectAll().where('id', '=', id).executeTakeFirst();
  await db.deleteFrom('webauthn_challenges').where('id', '=', id).execute();
  return row && row.purpose === purpose && row.expires_at > now ? row.challenge : undefined;
}

export function listPasskeys(db: Kysely<Database>, personId: string): Promise<PasskeyRow[]> {
  return db.selectFrom('person_passkeys').selectAll().where('person_id', '=', personId).orderBy('created_at').execute();
}

export async function removePasskey(db: Kysely<Database>, personId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('person_passkeys').where('id', '=', id).where('person_id', '=', personId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Options for the browser to create a passkey for `person`, and the handle of their challenge. */
export async function registrationOptions(
  db: Kysely<Database>,
  party: RelyingParty,
  person: PersonRow,
): Promise<{ handle: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const existing = await listPasskeys(db, person.id);
  const options = await generateRegistrationOptions({
    rpName: 'Quire',
    rpID: party.id,
    userName: person.email,
    userDisplayName: person.name,
    userID: new TextEncoder().encode(person.id),
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.id })),
    // Discoverable, so signing in needs no email address: the browser offers the person's passkeys.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  return { handle: await storeChallenge(db, options.challenge, `register:${person.id}`), options };
}

/** Checks the browser's answer and stores the new passkey; false when it does not verify. */
export async function registerPasskey(
  db: Kysely<Database>,
  party: RelyingParty,
  person: PersonRow,
  handle: string,
  response: RegistrationResponseJSON,
): Promise<boolean> {
  const challenge = await takeChallenge(db, handle, `register:${person.id}`);
  if (!challenge) return false;
  const result = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: party.origin, expectedRPID: party.id }).catch(
    () => null,
  );
  if (!result?.verified) return false;
  const { credential } = result.registrationInfo;
  await db
    .insertInto('person_passkeys')
    .values({
      id: credential.id,
      person_id: person.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: (credential.transports ?? []).join(','),
      created_at: Date.now(),
      last_used_at: null,
    })
    .execute();
  return true;
}

export async function authenticationOptions(
  db: Kysely<Database>,
  party: RelyingParty,
): Promise<{ handle: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const options = await generateAuthenticationOptions({ rpID: party.id, userVerification: 'preferred' });
  return { handle: await storeChallenge(db, options.challenge, 'authenticate'), options };
}

/** The person whose passkey answered the challenge, or undefined. */
export async function authenticate(
  db: Kysely<Database>,
  party: RelyingParty,
  handle: string,
  response: AuthenticationResponseJSON,
): Promise<PersonRow | undefined> {
  const challenge = await takeChallenge(db, handle, 'authenticate');
  if (!challenge || typeof response?.id !== 'string') return undefined;
  const passkey = await db.selectFrom('person_passkeys').selectAll().where('id', '=', response.id).executeTakeFirst();
  if (!passkey) return undefined;
  const result = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: party.origin,
    expectedRPID: party.id,
    credential: {
      id: passkey.id,
      publicKey: Buffer.from(passkey.public_key, 'base64url'),
      counter: Number(passkey.counter),
      transports: passkey.transports ? (passkey.transports.split(',') as WebAuthnCredential['transports']) : undefined,
    },
  }).catch(() => null);
  if (!result?.verified) return undefined;
  await db
    .updateTable('person_passkeys')
    .set({ counter: result.authenticationInfo.newCounter, last_used_at: Date.now() })
    .where('id', '=', passkey.id)
    .execute();
  return db.selectFrom('people').selectAll().where('id', '=', passkey.person_id).executeTakeFirst();
}
