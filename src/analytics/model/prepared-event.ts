/**
 * A validated page view as every stage hands it on: validation makes it (../ingest/validate.ts), the
 * capture rules and importers key it, the packed-batch columns carry it across threads, and ingestion
 * stores it. Kept here, below all of them, so none depends on another for the shape.
 */
import type { MarkdownRequest } from './markdown-request.ts';
import type { Verification } from './verification.ts';

/** What identifies a visitor in an event: the tracker's id, or the IP address and user agent. */
export interface VisitorKey {
  visitorId?: string;
  ip?: string;
  userAgent?: string;
}

/** The original request as far as its signature needs it: the path asked for and its headers (names in lower case). */
export interface SignedRequest {
  path: string;
  headers: Record<string, string>;
}

/** A validated event, ready to store. */
export interface PreparedEvent {
  at: number;
  path: string;
  markdown: MarkdownRequest;
  userAgent: string;
  visitorKey: VisitorKey;
  status: number | null;
  referrer: string | null;
  /** The page address's `utm_source` (its query string is otherwise dropped with the path's). */
  utmSource: string | null;
  /** Set by the importer: a deterministic id of the log line. */
  eventKey: string | null;
  /** Whether the view's claim to be a known agent checked out: by IP ranges at validation, by signature at ingestion. */
  verification: Verification;
  /** The request as signed, when the event carries headers; checked and dropped before storing. */
  signed: SignedRequest | null;
  /** The visitor key's hash, when the importer's reading thread computed it with this project's secret. */
  visitorHash?: string;
  /**
   * The country of `visitorKey.ip`, when the thread that packed the event looked it up
   * (packed-batch.ts); ingestion looks it up itself otherwise.
   */
  country?: string | null;
}
