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
} as const;
export type BreakdownKind = (typeof BreakdownKind)[keyof typeof BreakdownKind];

export const agentKinds: readonly BreakdownKind[] = [BreakdownKind.agentView, BreakdownKind.agentVerified, BreakdownKind.agentSpoofed];
export const allBreakdownKinds: readonly BreakdownKind[] = [...agentKinds, BreakdownKind.referrer];

/** Whether a kind's day sets keep visitors (the others count views only). */
export const keepsVisitors = (kind: BreakdownKind) => kind === BreakdownKind.agentView || kind === BreakdownKind.referrer;

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
