/** A parse thread of the drains (see lib/parse-pool.ts): decompresses, reads and checks batches, answers with columns. */
import { serveParses } from '../../lib/parse-pool.ts';
import { packedBuffers } from '../importers/packed-batch.ts';
import { prepareDrainBatch } from './prepare-batch.ts';

serveParses(prepareDrainBatch, (prepared) => (prepared.failure === undefined ? packedBuffers(prepared.events) : []));
