import type { Problem } from '../../sites/site.ts';

/** What a check looks at: the change and read access to the checkout before and after it. */
export interface ChangeToCheck {
  /** Files added, modified or deleted against the base; a move is a deletion and an addition. */
  changes: { path: string; status: 'added' | 'modified' | 'deleted' }[];
  /** Every file of the checkout after the change (paths relative to the root, `/`-separated). */
  files: ReadonlySet<string>;
  /** A file's text now, or null when it is missing, binary or larger than the checks read. */
  read(path: string): Promise<string | null>;
  /** A file's text at the base, or null when it did not exist there (or is too large). */
  readBase(path: string): Promise<string | null>;
}

/** How far the checks go, so a hostile repository cannot make them run long. */
export interface CheckLimits {
  /** Larger files are not parsed (reported as skipped). */
  maxFileBytes: number;
  /** Files whose links are scanned when a deletion may have broken links elsewhere. */
  maxScannedFiles: number;
  /** One page may take this long to parse (documentation pages take milliseconds); a slower one is skipped. */
  pageTimeoutMs: number;
  /** Aborted when the job stops (cancelled, shut down): the checks stop at once. */
  signal?: AbortSignal;
  /** Checks stop starting new files after this (epoch milliseconds); what was not reached is reported as skipped. */
  deadline: number;
}

export interface CheckReport {
  /** What was checked, each a short phrase for the pull request’s Checks section. */
  checked: string[];
  problems: Problem[];
  /** Files not checked (too large, or the time ran out), with why. */
  skipped: string[];
}
