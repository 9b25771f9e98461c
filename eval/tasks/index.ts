import type { EvalTask } from '../task.ts';
import { docusaurusTasks } from './docusaurus.ts';
import { generalTasks } from './general.ts';
import { mintlifyTasks } from './mintlify.ts';
import { mkdocsTasks } from './mkdocs.ts';

/** Every task of the evaluation set, in the order the score table lists them. */
export const evalTasks: EvalTask[] = [...mkdocsTasks, ...mintlifyTasks, ...docusaurusTasks, ...generalTasks];
