/** A parse thread of the events API (see lib/parse-pool.ts): parses and checks bodies, answers with columns. */
import { serveParses } from '../../lib/parse-pool.ts';
import { packedBuffers } from '../importers/packed-batch.ts';
import { eventsBodyTask } from './events-body.ts';

serveParses(eventsBodyTask, (parsed) => (parsed.failure === undefined && parsed.prepared ? packedBuffers(parsed.prepared.views) : []));
