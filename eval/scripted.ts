import type { ModelScript } from '../test/support/openai-server.ts';
import type { EvalTask, ScriptedRun } from './task.ts';

/** How a repair request from the docs checks starts (src/agent/checks/report.ts). */
const repairPrefix = 'Quire checked your change before committing it';

/**
 * A scripted model that plays every task at once: it tells the task by the repository named in the
 * system prompt, the run by the number of prompts so far, and the step by the turn. A repair request
 * gets the run's answer again (a scripted model cannot repair). `solutions` replaces tasks' own.
 */
export function scriptedModel(tasks: EvalTask[], solutions: Record<string, ScriptedRun[]> = {}): ModelScript {
  return (request, turn) => {
    const system = String(request.messages[0]?.content ?? '');
    const task = tasks.find((candidate) => system.includes(`/${candidate.name}.git `));
    if (!task) return { text: 'No change: this repository belongs to no task.' };
    const users = request.messages.filter((message) => message.role === 'user').map((message) => String(message.content));
    const prompts = users.filter((content) => !content.startsWith(repairPrefix));
    const run = (solutions[task.name] ?? task.solution)[prompts.length - 1];
    if (!run) return { text: 'No change: nothing more to do.' };
    if (users[users.length - 1].startsWith(repairPrefix) || turn >= run.steps.length) return { text: run.answer };
    return { text: '', toolCalls: run.steps[turn] };
  };
}
