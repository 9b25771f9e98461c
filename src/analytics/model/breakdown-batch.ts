import { readRecords, RecordWriter } from './varint.ts';

/**
 * Breakdown entries: what the agent and referrer breakdowns count, one entry per view and kind. The
 * key is the view's user-agent id (agent kinds) or referrer id. Kinds that only count views keep no
 * visitors in their day sets.
 */
export const BreakdownKind = {
  /** A counted AI view that was not spoofed, keyed by user agent. */
  agentView: 0,
  /** Of those, one whose claim to be its agent was verified. */
  agentVerified: 1,
  /** A view claiming a known agent whose claim failed verification (counted as nothing else). */
  agentSpoofed: 2,
  /** A counted human view sent by another site, keyed by referrer. */
  referrer: 3,
  /** A counted human view, keyed by user agent (the browser, OS and device breakdowns; AI views use `agentView`). */
  humanAgent: 4,
  /** A counted human or AI view, keyed by its country (`countryKey`: 0 for none). */
  countryHuman: 5,
  countryAi: 6,
  /** A counted human or AI view, keyed by its visit's source (referrer id, 0 for direct). */
  sourceHuman: 7,
  sourceAi: 8,
  /** A counted human or AI view that began a visit, keyed by path id (the entry page breakdown). */
  entryHuman: 9,
  entryAi: 10,
} as const;
export type BreakdownKind = (typeof BreakdownKind)[keyof typeof BreakdownKind];

export const agentKinds: readonly BreakdownKind[] = [BreakdownKind.agentView, BreakdownKind.agentVerified, BreakdownKind.agentSpoofed];
/** The kinds of the dimension breakdowns (query/dimension-days.ts). */
export const dimensionKinds: readonly BreakdownKind[] = [
  BreakdownKind.humanAgent,
  BreakdownKind.countryHuman,
  BreakdownKind.countryAi,
  BreakdownKind.sourceHuman,
  BreakdownKind.sourceAi,
  BreakdownKind.entryHuman,
  BreakdownKind.entryAi,
];
export const allBreakdownKinds: readonly BreakdownKind[] = [...agentKinds, BreakdownKind.referrer, ...dimensionKinds];

/** Whether a kind's day sets keep visitors (the others count views only). */
export const keepsVisitors = (kind: BreakdownKind) => kind !== BreakdownKind.agentVerified && kind !== BreakdownKind.agentSpoofed;

/** A country code (two capital letters, as the country tables keep them) as a breakdown key; 0 for none. */
export function countryKey(country: string | null): number {
  if (country === null) return 0;
  return 1 + (country.charCodeAt(0) - 65) * 26 + (country.charCodeAt(1) - 65);
}

/** The country code of a breakdown key (`countryKey`'s inverse); null for 0. */
export function countryOfKey(key: number): string | null {
  return key === 0 ? null : String.fromCharCode(65 + Math.floor((key - 1) / 26), 65 + ((key - 1) % 26));
}

export interface BreakdownEntry {
  day: number;
  kind: BreakdownKind;
  key: number;
  visitor: number;
}

/** A pending batch's breakdown entries are RecordWriter records `day, kind, key, visitor`. */
export function encodeBreakdownBatch(entries: BreakdownEntry[]): Uint8Array {
  const writer = new RecordWriter();
  for (const entry of entries) writer.add(entry.day, entry.kind, entry.key, entry.visitor);
  return writer.finish();
}

export function readBreakdownBatch(bytes: Uint8Array | null, visit: (day: number, kind: BreakdownKind, key: number, visitor: number) => void): void {
  if (bytes !== null) readRecords(bytes, visit as (day: number, kind: number, key: number, visitor: number) => void);
}

export function decodeBreakdownBatch(bytes: Uint8Array | null): BreakdownEntry[] {
  const entries: BreakdownEntry[] = [];
  readBreakdownBatch(bytes, (day, kind, key, visitor) => entries.push({ day, kind, key, visitor }));
  return entries;
}
