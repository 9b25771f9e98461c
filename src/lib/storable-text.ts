/**
 * Whether a text can be stored as it is, in either database: PostgreSQL refuses a NUL character in any
 * text ("invalid byte sequence"), and a lone UTF-16 surrogate has no UTF-8 form (SQLite stores U+FFFD in
 * its place, so a value looked up afterwards by the text it was given is not found). Texts from requests
 * are checked with this where they are validated, so such a value is refused with a 400 that names the
 * field instead of failing a whole statement later.
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** What to tell a client whose `name` failed `isStorableText`. */
export const unstorableMessage = (name: string) => `${name} holds a NUL character or an unpaired UTF-16 surrogate; remove it.`;

/** `text` made storable: NUL characters and unpaired surrogates become U+FFFD. For text Quire did not take from a client (a model's answer). */
export const storableText = (text: string): string => text.replaceAll('\u0000', '\uFFFD').toWellFormed();
