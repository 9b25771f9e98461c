import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { Dictionary } from './dense-ids.ts';
import data from './referrer-sources.json' with { type: 'json' };

export const referrerCategories = ['ai-assistant', 'search', 'social', 'other'] as const;
export type ReferrerCategory = (typeof referrerCategories)[number];

/** Whether `host` (with port when not default) is one of the project's tracker domains; `*.x` covers subdomains. */
export function allowedHost(domains: string, host: string): boolean {
  const name = host.toLowerCase();
  return domains
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean)
    .some((domain) => (domain.startsWith('*.') ? name.endsWith(domain.slice(1)) : name === domain));
}

const sources = data.sources as { host: string; category: ReferrerCategory }[];

/** A host as referrers are grouped: lower case, without port, trailing dot or `www.`. */
function groupedHost(host: string): string | null {
  const name = host
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/\.$/, '')
    .replace(/^www\./, '');
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name) ? name : null;
}

/**
 * The site that sent a view: the page's `utm_source` when it names a site (`chatgpt.com`), else the
 * referrer's host. Null for no referrer, a referrer that is not a web address, or a host of the
 * project's own tracker domains (a visitor moving between its pages).
 */
export function referringHost(referrer: string | null, utmSource: string | null, trackerDomains: string): string | null {
  let host = utmSource === null ? null : groupedHost(utmSource);
  if (host === null && referrer !== null) {
    const url = URL.parse(referrer);
    host = url && (url.protocol === 'http:' || url.protocol === 'https:') ? groupedHost(url.host) : null;
  }
  if (host === null || allowedHost(trackerDomains, host) || allowedHost(trackerDomains, `www.${host}`)) return null;
  return host;
}

/** The category of a referring host (see referrer-sources.json). */
export function referrerCategory(host: string): ReferrerCategory {
  for (const source of sources) {
    if (source.host.endsWith('.*')) {
      const name = source.host.slice(0, -1);
      if (host.startsWith(name) || host.includes(`.${name}`)) return source.category;
    } else if (host === source.host || host.endsWith(`.${source.host}`)) return source.category;
  }
  return 'other';
}

/** Ids of referring hosts (shared by every project), assigning new ones inside `trx`. */
export async function referrerIds(
  trx: Kysely<Database>,
  dictionary: Dictionary,
  hosts: string[],
): Promise<{ ids: Map<string, number>; learned: Map<string, number> }> {
  const learned = new Map<string, number>();
  const known = dictionary.referrers;
  const missing = [...new Set(hosts)].filter((host) => !known.has(host)).sort();
  for (let start = 0; start < missing.length; start += 500) {
    const part = missing.slice(start, start + 500);
    await trx
      .insertInto('analytics_referrers')
      .values(part.map((host) => ({ host })))
      .onConflict((conflict) => conflict.column('host').doNothing())
      .execute();
    const rows = await trx.selectFrom('analytics_referrers').select(['host', 'referrer_id']).where('host', 'in', part).execute();
    for (const row of rows) learned.set(row.host, Number(row.referrer_id));
  }
  const ids = new Map<string, number>();
  for (const host of new Set(hosts)) ids.set(host, known.get(host) ?? learned.get(host)!);
  return { ids, learned };
}

/** Hosts of referrer ids, from the cache or the database (which fills the cache). */
export async function referrerHosts(db: Kysely<Database>, dictionary: Dictionary, ids: Iterable<number>): Promise<Map<number, string>> {
  const hosts = new Map<number, string>();
  const wanted = new Set(ids);
  for (const [host, id] of dictionary.referrers) if (wanted.has(id)) hosts.set(id, host);
  const unknown = [...wanted].filter((id) => !hosts.has(id));
  for (let start = 0; start < unknown.length; start += 500) {
    const rows = await db
      .selectFrom('analytics_referrers')
      .select(['host', 'referrer_id'])
      .where('referrer_id', 'in', unknown.slice(start, start + 500))
      .execute();
    for (const row of rows) {
      dictionary.learnReferrer(row.host, Number(row.referrer_id));
      hosts.set(Number(row.referrer_id), row.host);
    }
  }
  return hosts;
}
