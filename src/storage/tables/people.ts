/** Rows of the people tables (timestamps are epoch milliseconds; see migration 020). */
export type PersonRole = 'owner' | 'member';

export interface PersonRow {
  id: string;
  org_id: string;
  name: string;
  /** Lower-cased; unique across the server. */
  email: string;
  role: PersonRole;
  /** `scrypt$N$r$p$salt$hash`; null when the person signs in with passkeys only. */
  password_hash: string | null;
  created_at: number;
}

export interface PasskeyRow {
  /** The WebAuthn credential id, base64url. */
  id: string;
  person_id: string;
  /** The credential's COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** Comma-separated authenticator transports (`internal,hybrid`). */
  transports: string;
  created_at: number;
  last_used_at: number | null;
}

export interface InvitationRow {
  id: string;
  /** SHA-256 of the invitation link's token, hex. */
  token_hash: string;
  org_id: string;
  role: PersonRole;
  /** Who it is for, as the owner wrote it. */
  note: string;
  created_at: number;
  expires_at: number;
  /** Set when accepted; an invitation works once. */
  used_at: number | null;
  person_id: string | null;
}

export interface WebAuthnChallengeRow {
  /** The handle the browser keeps in a cookie. */
  id: string;
  challenge: string;
  /** `register:<person or invitation>` or `authenticate`. */
  purpose: string;
  expires_at: number;
}

export interface PeopleTables {
  people: PersonRow;
  person_passkeys: PasskeyRow;
  invitations: InvitationRow;
  webauthn_challenges: WebAuthnChallengeRow;
}
