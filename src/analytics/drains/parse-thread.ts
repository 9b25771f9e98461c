/** A parse thread of the drains (see lib/parse-pool.ts): decompresses, reads and checks batches, answers with columns. */
import { serveParses } from '../../lib/parse-pool.ts';
import { drainBatchWork } from './prepare-batch.ts';

serveParses(drainBatchWork);
