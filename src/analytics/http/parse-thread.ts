/** A parse thread of the events API (see lib/parse-pool.ts): parses and checks bodies, answers with columns. */
import { serveParses } from '../../lib/parse-pool.ts';
import { eventsBodyWork } from './events-body.ts';

serveParses(eventsBodyWork);
