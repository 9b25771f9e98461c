import { Type } from 'typebox';
import { errorCodes, type ErrorCode } from './errors.ts';

/** The project a route's path names. */
export const ProjectParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64, description: 'Project id from the dashboard API keys page (`prj_…`).' }),
});

/** The body of every error response (see errors.ts). */
export const ErrorResponse = Type.Object({
  error: Type.String({ description: 'One sentence a person can act on.' }),
  code: Type.String({ description: 'Stable machine code (see docs/api.md).' }),
  details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
});

type ErrorResponseSchema = typeof ErrorResponse & { description: string };

/** An operation's error responses, keyed by the statuses of its codes. */
export type ErrorResponses<Code extends ErrorCode> = { [Status in (typeof errorCodes)[Code]['status']]: ErrorResponseSchema };

/**
 * The error responses of an operation, for its schema's `response`: each status the given codes
 * answer with, described by the registry. Codes that share a status (409) share one description.
 */
export function errorResponses<const Code extends ErrorCode>(codes: readonly Code[]): ErrorResponses<Code> {
  const meanings = new Map<number, string[]>();
  for (const code of codes) {
    const { status, meaning } = errorCodes[code];
    meanings.set(status, [...(meanings.get(status) ?? []), `\`${code}\`: ${meaning}`]);
  }
  const entries = [...meanings].map(([status, lines]) => [status, { ...ErrorResponse, description: lines.join(' ') }]);
  return Object.fromEntries(entries) as ErrorResponses<Code>;
}
