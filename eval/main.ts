/**
 * `npm run eval [-- --model provider:model] [--task name …] [--json]`: runs the documentation tasks
 * through Quire's job path and prints the score table. Without --model, scripted models solve each
 * task (what CI runs: it proves the harness and the graders work); with one, the model configured by
 * the environment does (ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL as for `quire serve`).
 */
import { parseArgs } from 'node:util';
import { checkModel } from '../src/llm/models.ts';
import { loadConfig } from '../src/config/config.ts';
import { runEval, type EvalModel } from './harness.ts';
import { scoreTable } from './report.ts';
import { evalTasks } from './tasks/index.ts';

const { values } = parseArgs({
  options: { model: { type: 'string' }, task: { type: 'string', multiple: true }, json: { type: 'boolean', default: false } },
});
const tasks = values.task?.length ? evalTasks.filter((task) => values.task!.some((name) => task.name.includes(name))) : evalTasks;
if (tasks.length === 0) {
  console.error(`No task matches ${values.task!.join(', ')}; the tasks are: ${evalTasks.map((task) => task.name).join(', ')}.`);
  process.exit(2);
}
const model: EvalModel = values.model ? { kind: 'configured', name: values.model } : { kind: 'scripted' };
if (values.model) {
  const problem = checkModel(values.model, loadConfig(process.env, { logLevel: 'silent' }));
  if (problem) {
    console.error(problem);
    process.exit(2);
  }
}
const label = values.model ?? 'scripted (each task’s own solution)';
console.error(`Running ${tasks.length} tasks with ${label}…`);
const scores = await runEval({
  tasks,
  model,
  environment: process.env,
  onTaskStart: (task, index) => console.error(`[${index + 1}/${tasks.length}] ${task.name} …`),
  onTaskEnd: (score, index) =>
    console.error(`[${index + 1}/${tasks.length}] ${score.task}: ${score.passed ? 'pass' : `FAIL (${score.reasons[0]})`} in ${score.seconds.toFixed(1)} s`),
});
console.log(values.json ? JSON.stringify({ model: label, scores }, null, 2) : scoreTable(scores, label));
