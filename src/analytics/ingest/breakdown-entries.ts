import { BreakdownKind, countryKey } from '../model/breakdown-batch.ts';
import { ClassCode } from '../model/class-codes.ts';
import type { MarkdownRequest } from '../model/markdown-request.ts';
import { Verification } from '../model/verification.ts';
import { claimsKnownAgent } from './agent-identity.ts';
import { countedClass, countsAsView } from './classify.ts';

/** What decides a stored view's breakdown entries. */
export interface BreakdownView {
  userAgent: string;
  agentId: number;
  markdown: MarkdownRequest;
  status: number | null;
  verification: Verification;
  referrerId: number | null;
  /** The view's dimensions (ingest/dimensions/): country code, its visit's source, whether it began the visit. */
  country: string | null;
  sourceId: number | null;
  entry: number;
  pathId: number;
}

/**
 * Calls `add` with each breakdown entry of a view (see model/breakdown-batch.ts). Ingestion,
 * partial-day queries and rebuilds all decide here, as they do for classes with `countedClass`.
 */
export function breakdownEntries(view: BreakdownView, add: (kind: BreakdownKind, key: number) => void): void {
  if (!countsAsView(view.status)) return;
  // A spoofed claim counts neither as AI nor as human, only as the spoofing of the agent it claimed.
  if (view.verification === Verification.spoofed && claimsKnownAgent(view.userAgent)) return add(BreakdownKind.agentSpoofed, view.agentId);
  const classCode = countedClass(view.userAgent, view.markdown, view.status, view.verification);
  if (classCode === ClassCode.ai) {
    add(BreakdownKind.agentView, view.agentId);
    if (view.verification === Verification.verified) add(BreakdownKind.agentVerified, view.agentId);
    add(BreakdownKind.countryAi, countryKey(view.country));
  } else if (classCode === ClassCode.human) {
    if (view.referrerId !== null) add(BreakdownKind.referrer, view.referrerId);
    add(BreakdownKind.humanAgent, view.agentId);
    add(BreakdownKind.countryHuman, countryKey(view.country));
  }
  visitEntries(classCode, view, add);
}

/**
 * The entries a view's visit gives it (source, and entry page when it began the visit), from its
 * counted class (null: none); the visit repair (fold/visit-repair.ts) recomputes them with it.
 */
export function visitEntries(
  classCode: ClassCode | null,
  view: Pick<BreakdownView, 'sourceId' | 'entry' | 'pathId'>,
  add: (kind: BreakdownKind, key: number) => void,
): void {
  if (classCode === ClassCode.ai) {
    add(BreakdownKind.sourceAi, view.sourceId ?? 0);
    if (view.entry === 1) add(BreakdownKind.entryAi, view.pathId);
  } else if (classCode === ClassCode.human) {
    add(BreakdownKind.sourceHuman, view.sourceId ?? 0);
    if (view.entry === 1) add(BreakdownKind.entryHuman, view.pathId);
  }
}
