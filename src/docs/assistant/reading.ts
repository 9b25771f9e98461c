import type { SearchHit } from '../search/search.ts';
import type { StoredPage } from '../index/types.ts';

export type Resolution = 'answered' | 'unanswered' | 'clarifying_question';

/** What the model says with record_outcome. */
export interface Outcome {
  resolution: Resolution;
  sources: string[];
}

/** A page the answer cites. */
export interface CitedPage {
  path: string;
  route: string;
  title: string;
  group: string;
  /** The anchor of the first section of the page the model was shown; '' when it read the page whole or saw its top. */
  anchor: string;
}

interface Seen extends CitedPage {
  read: boolean;
  /** Sections of the page the model was shown, searched or read: the page cited most is the one seen most. */
  weight: number;
}

/**
 * What the model searched and read in one turn, and what it recorded: the answer may cite only
 * pages it was shown, so a source the model invents is dropped. Without record_outcome, the turn is
 * `answered` with the pages it read.
 */
export class Reading {
  readonly #seen = new Map<string, Seen>();
  #outcome: Outcome | null = null;

  noteSection(hit: SearchHit): void {
    const seen = this.#seen.get(hit.path);
    if (seen) seen.weight += 1;
    else this.#seen.set(hit.path, { path: hit.path, route: hit.route, title: hit.title, group: hit.group, anchor: hit.anchor, read: false, weight: 1 });
  }

  notePage(page: StoredPage): void {
    const seen = this.#seen.get(page.path);
    if (seen) Object.assign(seen, { read: true, weight: seen.weight + 1 });
    else this.#seen.set(page.path, { path: page.path, route: page.route, title: page.title, group: page.group, anchor: '', read: true, weight: 1 });
  }

  record(outcome: Outcome): void {
    this.#outcome = outcome;
  }

  /** A path or route the model gave, as the page it saw; undefined when it saw none such. */
  #find(given: string): Seen | undefined {
    const trimmed = given.trim();
    return this.#seen.get(trimmed) ?? [...this.#seen.values()].find((seen) => seen.route === trimmed || seen.route === `/${trimmed}`);
  }

  /** The turn's resolution and cited pages (each once, in the model's order), and the group of the page seen most among them. */
  result(): { resolution: Resolution; cited: CitedPage[]; category: string | null } {
    const chosen = this.#outcome
      ? this.#outcome.sources.map((source) => this.#find(source)).filter((seen) => seen !== undefined)
      : [...this.#seen.values()].filter((seen) => seen.read);
    const cited = [...new Set(chosen)];
    const most = cited.reduce<Seen | undefined>((best, seen) => (best && best.weight >= seen.weight ? best : seen), undefined);
    return {
      resolution: this.#outcome?.resolution ?? 'answered',
      cited: cited.map(({ path, route, title, group, anchor }) => ({ path, route, title, group, anchor })),
      category: most?.group ?? null,
    };
  }
}
