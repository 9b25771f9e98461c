import { assistantQuestions } from './questions.ts';
import { runAssistantEval, type AssistantEvalModel } from './harness.ts';
import { assistantTable } from './report.ts';

/**
 * `npm run eval -- assistant [--model provider:model] [--question name …] [--json]`: asks the
 * assistant the evaluation's questions over the Temporal docs and prints the table. Without --model
 * the scripted reader answers (scripted.ts: what CI runs); with one, the model the environment
 * configures does, as for `quire serve`.
 */
export async function assistantEvalCli(values: { model?: string; question?: string[]; json?: boolean }): Promise<number> {
  const wanted = values.question ?? [];
  const questions = wanted.length
    ? assistantQuestions.filter((question) => wanted.some((name) => question.name.includes(name) || question.followUp?.name.includes(name)))
    : assistantQuestions;
  if (questions.length === 0) {
    console.error(`No question matches ${wanted.join(', ')}; the questions are: ${assistantQuestions.map((question) => question.name).join(', ')}.`);
    return 2;
  }
  const model: AssistantEvalModel = values.model ? { kind: 'configured', name: values.model } : { kind: 'scripted' };
  const label = values.model ?? 'scripted (reads what Quire’s tools return)';
  console.error(`Indexing the Temporal docs, then asking the assistant with ${label}…`);
  const scores = await runAssistantEval({
    questions,
    model,
    environment: process.env,
    onQuestionEnd: (score, index, total) =>
      console.error(
        `[${index + 1}/${total}] ${score.name}: ${score.correct ? 'pass' : 'FAIL'} (${score.resolution}, ${score.precise}/${score.cited.length} cited pages hold the answer)`,
      ),
  });
  console.log(values.json ? JSON.stringify({ model: label, scores }, null, 2) : assistantTable(scores, label));
  return 0;
}
