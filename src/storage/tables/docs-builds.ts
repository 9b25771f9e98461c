/**
 * A project's docs builds as durable work (see docs/index/queue/): one row per project. A build is
 * queued or running while `requested_seq > finished_seq`.
 */
export interface DocsBuildRow {
  project_id: string;
  /** Raised by every request for a build. */
  requested_seq: number;
  /** The request the running (or last) build took. */
  claimed_seq: number;
  /** The request the last finished build served. */
  finished_seq: number;
  /** Epoch ms of the latest request. */
  requested_at: number;
  /** Claims of the current request; a crash leaves it counted. */
  attempts: number;
  locked_by: string | null;
  /** Epoch ms; another builder may claim the row after it. */
  locked_until: number | null;
  /** The commit the last finished build (done or failed) looked at. */
  last_commit: string | null;
  /** The docs path it read, so a changed path builds again at the same commit. */
  last_docs_path: string | null;
  /** The docs path the generation readers see was built from: an incremental build needs the same one. */
  built_docs_path: string | null;
  /** JSON `[{path, message}]` of the last completed build. */
  page_errors: string;
  finished_at: number | null;
  /** Epoch ms before which the poll loop does not ask the remote again; null: at the next tick. */
  poll_after: number | null;
  /** Polls in a row whose repository could not be resolved: the wait doubles with each. */
  poll_failures: number;
}

export interface DocsBuildsTables {
  docs_builds: DocsBuildRow;
}
