/**
 * Analytics' one declared entry point for recording requests that Quire answers itself (the docs
 * surface, the MCP servers, discovery operations): each request is judged by the rules the proxy's
 * requests are (request-event.ts: pages only, by the project's asset rule; an invalid IP dropped; an
 * unsafe path escaped), then validated, classified, verified and committed through ingestion
 * (../ingest/ingest.ts). The promise resolves once the views are committed and never rejects: a
 * caller may leave it unawaited, and a failure is logged and returned instead. Searches and feedback
 * those features take (the discovery search, the MCP tools) are stored by `recordInteractions`, with
 * the events API's checks.
 */
import { isIP } from 'node:net';
import { prepareInteraction, type PreparedInteraction } from '../feedback/validate.ts';
import { mcpUserAgent, type McpClient } from '../ingest/agent-identity.ts';
import { prepareAll, storeVerified, type IngestProject, type IngestState } from '../ingest/ingest.ts';
import type { IncomingEvent } from '../ingest/validate.ts';
import { flushInteractions, interactionBuffer } from './interaction-buffer.ts';
import { assetRuleOf, type AssetSettings } from './assets.ts';
import { countReason, invalidReason, requestEvent, type ReasonCounts } from './request-event.ts';
import { signatureHeaders, type RequestHeaders } from './signature-headers.ts';

/** Stores the searches and feedback still buffered: the server and the proxy call it at shutdown. */
export { flushInteractions };
/** The longest feedback texts recording takes (a longer one is refused), for sources that check before they record. */
export { feedbackLimits } from '../feedback/kinds.ts';

/** A request as the feature that answered it knows it. */
export interface RecordedRequest {
  /** The request target as asked for (path and query string). */
  path: string;
  /** Only GET and HEAD are views (default GET). */
  method?: string;
  /** The answer's status; only 2xx and 3xx count as views. */
  status?: number;
  userAgent?: string;
  /** The client's address, as `server/client-address.ts` resolves it. */
  ip?: string;
  accept?: string;
  referrer?: string;
  /** The answer's Content-Type: the asset rule reads it. */
  contentType?: string;
  /** The request's headers: only a Web Bot Auth signature and the headers it covers are kept. */
  headers?: RequestHeaders;
  /** When the request arrived, in epoch milliseconds (default now). */
  timestamp?: number;
  /**
   * `mcp` for a page an MCP server returned: the view is stored with a user agent that names the
   * MCP client (`client`, from `initialize`) when the request's own names no known agent, and is
   * listed among the agents breakdown's `mcpViews` (see ../ingest/agent-identity.ts).
   */
  via?: 'mcp';
  client?: McpClient;
}

/** The project a request was for: its id and secret (visitor keys) and its asset rule. */
export type RecordProject = IngestProject & AssetSettings;

export interface RecordResult {
  /** Views committed. */
  stored: number;
  /** Requests that are not views (an asset, a POST) or that validation refused, by reason. */
  skipped: ReasonCounts;
  /** Why nothing was stored (the database failed), or null. */
  failure: string | null;
}

/** Records requests of one project; see the file's comment. */
export async function recordRequests(analytics: IngestState, project: RecordProject, requests: RecordedRequest[]): Promise<RecordResult> {
  const skipped: ReasonCounts = {};
  try {
    const rule = assetRuleOf(project);
    const inputs: IncomingEvent[] = [];
    for (const request of requests) {
      const { timestamp, headers, method = 'GET', via, client, ...fields } = request;
      if (via === 'mcp') fields.userAgent = mcpUserAgent(fields.userAgent, client);
      const event = requestEvent({ ...fields, method, at: timestamp ?? Date.now(), headers: headers && signatureHeaders(headers) }, rule, () => {});
      if ('skip' in event) countReason(skipped, event.skip);
      else inputs.push(event);
    }
    const { events, errors } = prepareAll(inputs);
    for (const error of errors) countReason(skipped, invalidReason(error.message));
    const { stored } = await storeVerified(analytics, project, events);
    return { stored, skipped, failure: null };
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    analytics.logger.warn({ err: error, project: project.id, requests: requests.length }, 'recording requests failed; their views are lost');
    return { stored: 0, skipped, failure };
  }
}

/** Records one request; see recordRequests. */
export function recordRequest(analytics: IngestState, project: RecordProject, request: RecordedRequest): Promise<RecordResult> {
  return recordRequests(analytics, project, [request]);
}

/** Who made the request that searched or sent feedback: kept only as the keyed visitor and its class (../feedback/visitor.ts). */
export type InteractionSender = Pick<RecordedRequest, 'userAgent' | 'ip' | 'via' | 'client'>;

/**
 * The sender as event fields, judged as a view's request is: an MCP request is the client it names
 * (`via: "mcp"`, see RecordedRequest), and an address that is not an IP is dropped.
 */
function senderFields({ userAgent, ip, via, client }: InteractionSender): Record<string, string | undefined> {
  return {
    userAgent: via === 'mcp' ? mcpUserAgent(userAgent, client) : userAgent || undefined,
    ip: ip !== undefined && isIP(ip) !== 0 ? ip : undefined,
  };
}

/**
 * Stores searches and feedback (`{kind: "search", query, hits}`, `{kind: "feedback", path, source, …}`,
 * the events API's shapes) through the checks and store the events API uses (../feedback/), each
 * sent by `sender` when given. They are written in batches (interaction-buffer.ts), so the call
 * costs no database round trip; the promise resolves with the number stored once their batch has
 * committed, and never rejects: an event the checks refuse, or a failed commit, is logged.
 */
export async function recordInteractions(
  analytics: IngestState,
  project: RecordProject,
  events: Record<string, unknown>[],
  sender?: InteractionSender,
): Promise<number> {
  const checked: PreparedInteraction[] = [];
  const fields = sender && senderFields(sender);
  for (const event of events) {
    try {
      checked.push(prepareInteraction({ ...event, ...fields }, Date.now()));
    } catch (error) {
      analytics.logger.warn({ err: error, project: project.id }, 'a recorded search or feedback was refused by its checks');
    }
  }
  // Feedback is awaited by its sender's answer: its batch is written at once rather than on the timer.
  return interactionBuffer(analytics).add(
    project,
    checked,
    checked.some((event) => event.kind === 'feedback'),
  );
}
