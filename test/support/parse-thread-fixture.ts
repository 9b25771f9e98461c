/**
 * A parse thread for the pool's own tests: answers a text's length, and throws for a text starting with "!".
 * The text "young generation" makes it churn short-lived objects, as ingestion does, and answers the size its
 * young generation grew to, in MiB.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { asIs, serveParses } from '../../src/lib/parse-pool.ts';

function youngGenerationMb(): number {
  let kept: object[] = [];
  for (let index = 0; index < 3_000_000; index++) {
    kept.push({ index, text: `view ${index}` });
    if (kept.length > 200_000) kept = [];
  }
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size / 1024 / 1024;
}

function lengthOrFault(text: string): number {
  if (text.startsWith('!')) throw new Error(`cannot measure ${text.slice(0, 8)}`);
  if (text.startsWith('young generation')) return youngGenerationMb();
  return text.length;
}

serveParses(asIs(lengthOrFault));
