/**
 * `npm run eval [-- jobs] [--model provider:model] [--task name …] [--json]`: runs the documentation tasks
 * through Quire's job path and prints the score table. Without --model, scripted models solve each
 * task (what CI runs: it proves the harness and the graders work); with one, the model configured by
 * the environment does (ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL as for `quire serve`).
 *
 * `npm run eval -- assistant [--model provider:model] [--question name …] [--json]`: the docs
 * assistant's evaluation instead (eval/assistant/), with the same --model and --json.
 */
import { parseArgs } from 'node:util';
import { checkModel } from '../src/llm/models.ts';
import { loadConfig } from '../src/config/config.ts';
import { assistantEvalCli } from './assistant/main.ts';
import { runEval, type EvalModel } from './harness.ts';
import { scoreTable } from './report.ts';
import { evalTasks } from './tasks/index.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: 'string' },
    task: { type: 'string', multiple: true },
    question: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false },
  },
});
const suite = positionals[0] ?? 'jobs';
if (positionals.length > 1 || !['jobs', 'assistant'].includes(suite)) {
  console.error(`Unknown evaluation ${positionals.join(' ')}: run \`npm run eval\` (the agent jobs) or \`npm run eval -- assistant\` (the docs assistant).`);
  process.exit(2);
}
if (values.model) {
  const problem = checkModel(values.model, loadConfig(process.env, { logLevel: 'silent' }));
  if (problem) {
    console.error(problem);
    process.exit(2);
  }
}
if (suite === 'assistant') {
  if (values.task?.length) {
    console.error('--task selects agent job tasks; the assistant evaluation takes --question.');
    process.exit(2);
  }
  process.exitCode = await assistantEvalCli(values);
} else {
  if (values.question?.length) {
    console.error('--question selects assistant questions: run `npm run eval -- assistant --question …`.');
    process.exit(2);
  }
  const tasks = values.task?.length ? evalTasks.filter((task) => values.task!.some((name) => task.name.includes(name))) : evalTasks;
  if (tasks.length === 0) {
    console.error(`No task matches ${values.task!.join(', ')}; the tasks are: ${evalTasks.map((task) => task.name).join(', ')}.`);
    process.exit(2);
  }
  const model: EvalModel = values.model ? { kind: 'configured', name: values.model } : { kind: 'scripted' };
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
}
