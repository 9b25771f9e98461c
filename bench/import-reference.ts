/**
 * The capture benchmark's reference importer: the least a Node importer does that keeps the design's rule for
 * ingestion ("appends raw events durably", ARCHITECTURE.md) with the parts Quire is built on (Node and
 * node:sqlite). It reads a combined log (`node bench/import-reference.ts FILE DATABASE`), reads each line
 * with one regular expression, and stores it as one row of one table with one index (its day), 10,000 lines
 * a transaction on disk (`synchronous = full`). Nothing else: one thread, no validation beyond the pattern,
 * no classification, no visitor hashes or sets, no deduplication, raw addresses stored as read. Timed beside
 * GoAccess (which keeps its counts in memory and writes nothing) and `quire analytics import` on the same
 * file in the same round, it shows what storing every line costs a Node importer on the machine of the run.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { referenceStore } from './reference-store.ts';

const [file, path] = process.argv.slice(2);
const { database, insert } = referenceStore(path!, ['ip', 'path', 'status', 'referrer', 'user_agent']);

const line = /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) [+-]\d{4}\] "\S+ (\S+)[^"]*" (\d{3}) \S+(?: "([^"]*)" "([^"]*)")?/;
const months = new Map(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].map((name, index) => [name, index]));
const perCommit = 10_000;
let inTransaction = 0;
let stored = 0;
let skipped = 0;

for await (const text of createInterface({ input: createReadStream(file!), crlfDelay: Infinity })) {
  const match = line.exec(text);
  if (match === null) {
    skipped++;
    continue;
  }
  const [, ip, day, month, year, hours, minutes, seconds, target, status, referrer, userAgent] = match;
  const at = Date.UTC(Number(year), months.get(month!) ?? 0, Number(day), Number(hours), Number(minutes), Number(seconds));
  if (inTransaction === 0) database.exec('begin');
  insert.run(at, ip!, target!, Number(status), referrer === undefined || referrer === '-' ? null : referrer, userAgent ?? null);
  stored++;
  if (++inTransaction === perCommit) {
    database.exec('commit');
    inTransaction = 0;
  }
}
if (inTransaction > 0) database.exec('commit');
database.close();
process.stdout.write(`${JSON.stringify({ stored, skipped })}\n`);
