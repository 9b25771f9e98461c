import type { ModelMessage } from 'ai';
import { ApiError, invalidRequest } from '../../http/errors.ts';
import { isStorableText, unstorableMessage } from '../../lib/storable-text.ts';
import type { BodyMessage, MessageBody } from './schemas.ts';

/** Characters of the whole conversation a body may carry: the fields are bounded one by one, this bounds them together. */
const conversationLimit = 100_000;

/** Earlier turns the model sees, newest kept: at most this many, and at most this many characters. */
export const historyBounds = { turns: 10, characters: 24_000 };

/** A message's text: its `text` parts (AI SDK 5+), else its `content` (AI SDK 4). */
export function messageText(message: BodyMessage): string {
  if (message.parts) {
    return message.parts
      .filter((part) => part.type === 'text')
      .map((part) => part.text ?? '')
      .join('\n');
  }
  return message.content ?? '';
}

/** The reader's question: the last message, which must be the user's and have text. */
export function questionOf(body: MessageBody): string {
  const last = body.messages[body.messages.length - 1];
  if (last.role !== 'user') {
    throw invalidRequest('The last message must be the user’s question: end `messages` with a message whose role is "user".', [
      { path: `/messages/${body.messages.length - 1}/role`, message: 'must be "user"' },
    ]);
  }
  const question = messageText(last).trim();
  if (!question) {
    throw invalidRequest('The last message has no text: give it a text part (or `content`) with the question.', [
      { path: `/messages/${body.messages.length - 1}`, message: 'must have text' },
    ]);
  }
  // Both are stored with the turn: refused here, before the limits and the model, not by the database once answered.
  if (!isStorableText(question)) {
    throw invalidRequest(unstorableMessage('The question'), [{ path: `/messages/${body.messages.length - 1}`, message: 'must be storable text' }]);
  }
  if (body.currentPath !== undefined && !isStorableText(body.currentPath)) {
    throw invalidRequest(unstorableMessage('currentPath'), [{ path: '/currentPath', message: 'must be storable text' }]);
  }
  const total =
    body.messages.reduce((sum, message) => sum + messageText(message).length, 0) + (body.context ?? []).reduce((sum, item) => sum + item.value.length, 0);
  if (total > conversationLimit) {
    throw new ApiError(
      'payload_too_large',
      `The messages and context hold ${total} characters, over the ${conversationLimit} one request may carry: send only the new question with the thread's threadId and threadKey, or shorten the context.`,
    );
  }
  return question;
}

/** A question and its answer, as the model sees an earlier turn. */
export interface Exchange {
  query: string;
  response: string;
}

/** The body's messages before the question, paired up, for a conversation that has no stored thread yet. */
export function exchangesOfBody(body: MessageBody): Exchange[] {
  const exchanges: Exchange[] = [];
  const earlier = body.messages.slice(0, -1).filter((message) => message.role !== 'system');
  earlier.forEach((message, index) => {
    if (message.role !== 'user') return;
    const next = earlier[index + 1];
    exchanges.push({ query: messageText(message), response: next?.role === 'assistant' ? messageText(next) : '' });
  });
  return exchanges;
}

/** The newest exchanges within historyBounds, oldest first. */
function bounded(exchanges: Exchange[]): Exchange[] {
  const kept: Exchange[] = [];
  let characters = 0;
  for (const exchange of exchanges.slice(-historyBounds.turns).reverse()) {
    characters += exchange.query.length + exchange.response.length;
    if (characters > historyBounds.characters) break;
    kept.unshift(exchange);
  }
  return kept;
}

/** What the reader points at and where they are, for the model, before the question. */
function situation(body: MessageBody): string {
  const lines: string[] = [];
  if (body.currentPath) lines.push(`The reader is on the docs page ${body.currentPath}.`);
  for (const item of body.context ?? []) {
    const from = item.path ? ` (from ${item.path})` : '';
    lines.push(`The reader points at this ${item.type === 'code' ? 'code' : 'selected text'}${from}:\n"""\n${item.value}\n"""`);
  }
  return lines.length ? `${lines.join('\n\n')}\n\n` : '';
}

/** The model's messages: earlier exchanges (bounded), then the question with the reader's situation. */
export function modelMessages(history: Exchange[], body: MessageBody, question: string): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const exchange of bounded(history)) {
    messages.push({ role: 'user', content: exchange.query });
    if (exchange.response) messages.push({ role: 'assistant', content: exchange.response });
  }
  messages.push({ role: 'user', content: `${situation(body)}${question}` });
  return messages;
}
