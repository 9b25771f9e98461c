import { isStorableText } from '../../lib/storable-text.ts';

/** Opaque page cursors: the sort key of the last row given, as base64url JSON. */
export function encodeCursor(key: [number, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key a cursor holds; throws a message to show the client when it is not one this API gave. */
export function decodeCursor(cursor: string | undefined): [number, string] | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === 2 && Number.isSafeInteger(key[0]) && typeof key[1] === 'string' && isStorableText(key[1]))
      return key as [number, string];
  } catch {
    // Reported below.
  }
  throw new Error('cursor is not one this API gave; pass the nextCursor of the previous page, or leave it out for the first page.');
}
