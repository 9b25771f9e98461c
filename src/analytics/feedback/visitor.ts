/**
 * Who sent a feedback or search event, so docs gaps can count distinct people and agents: the
 * event's optional `visitorId`, `userAgent` and `ip`, checked as a view's are, become the view's
 * keyed visitor hash (../ingest/visitor-hash.ts) and its dense visitor id, so one person has one
 * id across views, searches and feedback. Only the id and the class are stored; raw IPs never are.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { countedClass } from '../ingest/classify.ts';
import type { IngestProject, IngestState } from '../ingest/ingest.ts';
import { visitorFields } from '../ingest/validate.ts';
import { idReserver } from '../ingest/dense-ids.ts';
import { visitorHash } from '../ingest/visitor-hash.ts';
import { visitorIds } from '../ingest/visitor-identity.ts';
import { rangeVerification } from '../ingest/verify/operator-ranges.ts';
import { ClassCode } from '../model/class-codes.ts';
import type { VisitorKey } from '../model/prepared-event.ts';
import { MarkdownRequest } from '../model/markdown-request.ts';
import { interactionClassCode } from './kinds.ts';

/** The visitor of a checked event: its key (hashed when stored) and its class code, null when no user agent says. */
export interface InteractionVisitor {
  key: VisitorKey;
  visitorClass: number | null;
}

/** The columns an interaction row stores of its visitor (both null for an event that named none). */
export interface VisitorColumns {
  visitor_id: number | null;
  visitor_class: number | null;
}

export const noVisitor: VisitorColumns = { visitor_id: null, visitor_class: null };

/**
 * The class a search or feedback's sender counts under, by the rules views follow (../ingest/classify.ts)
 * for a request that is not a Markdown fetch: a known AI agent is `ai`, a browser `human`, any other
 * client, or a spoofed claim to be a known agent, `excluded`.
 */
function classOf(userAgent: string, ip: string | undefined): number {
  const counted = countedClass(userAgent, MarkdownRequest.none, null, rangeVerification(userAgent, ip));
  return interactionClassCode(counted === null ? 'excluded' : counted === ClassCode.ai ? 'ai' : 'human');
}

/** The visitor an event names, checked; null when it carries none of `visitorId`, `userAgent`, `ip`. Throws what to fix. */
export function interactionVisitor(event: Record<string, unknown>): InteractionVisitor | null {
  const key = visitorFields(event);
  if (key.visitorId === undefined && key.userAgent === undefined && key.ip === undefined) return null;
  return { key, visitorClass: key.userAgent === undefined || key.userAgent === '' ? null : classOf(key.userAgent, key.ip) };
}

/**
 * The visitor columns of each event, with dense ids assigned inside `trx` as ingestion assigns them
 * (and reserved the way it reserves them), so a visitor already seen in views keeps its id.
 */
export async function visitorColumns<T extends { visitor: InteractionVisitor | null }>(
  trx: Kysely<Database>,
  state: Pick<IngestState, 'storage' | 'ids'>,
  project: IngestProject,
  key: number,
  events: T[],
): Promise<Map<T, VisitorColumns>> {
  const hashes = new Map<T, string>();
  for (const event of events) if (event.visitor !== null) hashes.set(event, visitorHash(project.analytics_secret, event.visitor.key));
  const columns = new Map<T, VisitorColumns>();
  if (hashes.size === 0) return columns;
  const reserveIds = idReserver(state.storage, state.ids, trx, key);
  const { ids } = await visitorIds(trx, state.storage.profile, state.ids.visitorLog, key, [...new Set(hashes.values())], reserveIds);
  for (const [event, hash] of hashes) columns.set(event, { visitor_id: ids.get(hash)!, visitor_class: event.visitor!.visitorClass });
  return columns;
}
