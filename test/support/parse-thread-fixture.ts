/** A parse thread for the pool's own tests: answers a text's length, and throws for a text starting with "!". */
import { asIs, serveParses } from '../../src/lib/parse-pool.ts';

function lengthOrFault(text: string): number {
  if (text.startsWith('!')) throw new Error(`cannot measure ${text.slice(0, 8)}`);
  return text.length;
}

serveParses(asIs(lengthOrFault));
