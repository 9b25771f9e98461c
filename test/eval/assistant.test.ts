import { describe, expect, it } from 'vitest';
import { runAssistantEval } from '../../eval/assistant/harness.ts';
import { assistantQuestions } from '../../eval/assistant/questions.ts';
import { assistantTable } from '../../eval/assistant/report.ts';
import { scriptedAssistant } from '../../eval/assistant/scripted.ts';
import type { ChatRequest } from '../../test/support/openai-server.ts';

const chosen = (...names: string[]) => assistantQuestions.filter((question) => names.includes(question.name));

describe('the docs assistant evaluation', () => {
  it('has at least 20 questions with unique names: answerable, unanswerable and follow-ups', () => {
    const names = assistantQuestions.flatMap((question) => [question.name, ...(question.followUp ? [question.followUp.name] : [])]);
    expect(names.length).toBeGreaterThanOrEqual(20);
    expect(new Set(names).size).toBe(names.length);
    expect(assistantQuestions.filter((question) => !question.answerable).length).toBeGreaterThanOrEqual(5);
    expect(assistantQuestions.filter((question) => question.followUp).length).toBeGreaterThanOrEqual(3);
  });

  it('asks Quire over HTTP about the Temporal docs and scores the citations, the unanswered turn and the follow-up', { timeout: 120_000 }, async () => {
    const scores = await runAssistantEval({ questions: chosen('parent-close-policy', 'cobol-sdk'), model: { kind: 'scripted' } });
    expect(
      scores.map(({ name, kind, resolution, cited, precise, correct, sameThread }) => ({ name, kind, resolution, cited, precise, correct, sameThread })),
    ).toEqual([
      {
        name: 'parent-close-policy',
        kind: 'answerable',
        resolution: 'answered',
        cited: ['docs/encyclopedia/child-workflows/parent-close-policy.mdx'],
        precise: 1,
        correct: true,
        sameThread: null,
      },
      {
        name: 'parent-close-abandon',
        kind: 'follow-up',
        resolution: expect.any(String),
        cited: expect.any(Array),
        precise: expect.any(Number),
        correct: expect.any(Boolean),
        sameThread: true,
      },
      { name: 'cobol-sdk', kind: 'unanswerable', resolution: 'unanswered', cited: [], precise: 0, correct: true, sameThread: null },
    ]);
    const table = assistantTable(scores, 'scripted');
    expect(table).toMatch(
      /^parent-close-policy\s+answerable\s+answered\s+1\s+1\s+1\.00\s+-\s+pass\s+encyclopedia\/child-workflows\/parent-close-policy\.mdx$/m,
    );
    expect(table).toContain('Unanswerable: 1/1 recorded unanswered');
    expect(table).toContain('Citation precision: ');
  });

  it('has the scripted reader ask back when a follow-up arrives without its thread’s earlier question', () => {
    const script = scriptedAssistant(assistantQuestions);
    const followUp = assistantQuestions.find((question) => question.name === 'task-queue')!.followUp!;
    const request = (messages: ChatRequest['messages']): ChatRequest => ({ model: 'm', messages, headers: {} });
    expect(script(request([{ role: 'user', content: followUp.question }]), 0)).toMatchObject({
      toolCalls: [{ name: 'record_outcome', arguments: { resolution: 'clarifying_question' } }],
    });
    expect(
      script(
        request([
          { role: 'user', content: 'What is a Task Queue?' },
          { role: 'assistant', content: 'A queue.' },
          { role: 'user', content: followUp.question },
        ]),
        0,
      ),
    ).toMatchObject({ toolCalls: [{ name: 'search_docs', arguments: { query: `What is a Task Queue? ${followUp.question}` } }] });
  });
});
