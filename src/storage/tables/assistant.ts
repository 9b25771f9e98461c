/** A conversation with the docs assistant. */
export interface AssistantThreadRow {
  /** `thr_…`, random. */
  id: string;
  project_id: string;
  /** SHA-256 (hex) of the thread key the reader was given once; a follow-up must send the key. */
  key_hash: string;
  /** HMAC of the client's `fp` with the project's analytics secret (hex), as visitor ids are; null without one. */
  fingerprint: string | null;
  /** Epoch ms. */
  created_at: number;
}

/** One question and its answer. Only answered, unanswered and clarifying turns are stored. */
export interface AssistantTurnRow {
  /** `trn_…`, sortable by creation. */
  id: string;
  thread_id: string;
  project_id: string;
  /** The reader's question as sent. */
  query: string;
  /** The answer's text. */
  response: string;
  /** `answer` or `clarifying_question`. */
  response_type: string;
  /** `answered` or `unanswered`. */
  resolution: string;
  /** JSON array of `{path, title, url}`: the pages the answer cited. */
  sources: string;
  /** The navigation group of the page cited most; null without sources. */
  query_category: string | null;
  /** The page the reader was on (`currentPath`); null without one. */
  current_path: string | null;
  /** `web`, `api` or `other`. */
  caller: string;
  /** Epoch ms. */
  created_at: number;
}

export interface AssistantTables {
  assistant_threads: AssistantThreadRow;
  assistant_turns: AssistantTurnRow;
}
