/**
 * The docs assistant's evaluation set, over the Temporal documentation the docs benchmark serves
 * (bench/fixtures/temporal-docs): questions the docs answer, questions they do not, and follow-ups
 * asked in the same thread. A page contains the answer when it holds every `answer` string (any case).
 */
export interface AssistantQuestion {
  /** Unique; names the row of the table. */
  name: string;
  question: string;
  /**
   * Strings a page holding the answer contains, every one (any case). For a question the docs do not
   * answer, what an answer would have to mention: no page holds it.
   */
  answer: string[];
  /** Whether the docs answer it; when not, the turn must be recorded `unanswered`. */
  answerable: boolean;
  /** A question asked next in the same thread, which makes sense only after this one. */
  followUp?: Omit<AssistantQuestion, 'followUp' | 'answerable'>;
}

export const assistantQuestions: AssistantQuestion[] = [
  {
    name: 'event-history-limit',
    question: 'How many Events can a Workflow Execution’s Event History hold?',
    answer: ['51,200'],
    answerable: true,
    followUp: { name: 'event-history-warning', question: 'And at what size does it start to warn me?', answer: ['10,240'] },
  },
  {
    name: 'parent-close-policy',
    question: 'What is a Parent Close Policy?',
    answer: ['Parent Close Policy determines what happens to a Child Workflow'],
    answerable: true,
    followUp: { name: 'parent-close-abandon', question: 'What does its Abandon option do?', answer: ['Abandon', 'is not affected'] },
  },
  {
    name: 'worker-versioning',
    question: 'What is Worker Versioning?',
    answer: ['Worker Versioning is'],
    answerable: true,
    followUp: {
      name: 'worker-versioning-stage',
      question: 'Is it generally available yet, or still in preview?',
      answer: ['Worker Versioning', 'Public Preview'],
    },
  },
  {
    name: 'task-queue',
    question: 'What is a Task Queue?',
    answer: ['Task Queue is a'],
    answerable: true,
    followUp: { name: 'task-queue-pollers', question: 'Who polls it for Tasks?', answer: ['polled by one or more Workers'] },
  },
  { name: 'local-activity', question: 'What is a Local Activity?', answer: ['executes in the same process as the'], answerable: true },
  { name: 'heartbeat-timeout', question: 'What is a Heartbeat Timeout?', answer: ['maximum time between'], answerable: true },
  {
    name: 'schedule-to-close',
    question: 'What does the Schedule-To-Close Timeout of an Activity limit?',
    answer: ['Schedule-To-Close Timeout is the maximum amount of time'],
    answerable: true,
  },
  { name: 'codec-server', question: 'What does a Codec Server do?', answer: ['Codec Server is an HTTP'], answerable: true },
  { name: 'namespace', question: 'What is a Namespace in Temporal?', answer: ['Namespace is a unit of isolation'], answerable: true },
  {
    name: 'search-attribute',
    question: 'What is a Search Attribute used for?',
    answer: ['Search Attribute is an indexed field'],
    answerable: true,
  },
  { name: 'retry-policy', question: 'What is a Retry Policy?', answer: ['Retry Policy is a collection of settings'], answerable: true },
  { name: 'dev-server', question: 'How do I start a local Temporal development server with the CLI?', answer: ['temporal server start-dev'], answerable: true },
  { name: 'cloud-sla', question: 'What availability does Temporal Cloud’s SLA guarantee?', answer: ['99.99%', 'SLA'], answerable: true },
  {
    name: 'archival-retention',
    question: 'What retention period does Archival use when none is set?',
    answer: ['defaults to 72h'],
    answerable: true,
  },
  { name: 'cobol-sdk', question: 'Is there an official COBOL SDK for Temporal?', answer: ['COBOL'], answerable: false },
  { name: 'airflow-import', question: 'How do I import my Apache Airflow DAG files into Temporal automatically?', answer: ['Airflow'], answerable: false },
  { name: 'price-in-yen', question: 'How much does Temporal Cloud cost per month in Japanese yen?', answer: ['Japanese yen'], answerable: false },
  { name: 'berlin-office', question: 'What is the phone number of Temporal’s Berlin office?', answer: ['Berlin'], answerable: false },
  { name: 'excel-macro', question: 'Can I write a Workflow Definition as an Excel macro?', answer: ['Excel macro'], answerable: false },
  { name: 'fortran-worker', question: 'How do I run a Worker written in Fortran?', answer: ['Fortran'], answerable: false },
];

/** Every question with the one it follows (if it is a follow-up), in the order they are asked. */
export function askedQuestions(questions: AssistantQuestion[]): { question: AssistantQuestion; after?: AssistantQuestion }[] {
  return questions.flatMap((question) => [
    { question },
    ...(question.followUp ? [{ question: { ...question.followUp, answerable: question.answerable }, after: question }] : []),
  ]);
}
