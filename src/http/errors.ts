/**
 * The one registry of error codes: each one's HTTP status and what it means, the description an
 * operation's OpenAPI responses carry (see schemas.ts). Every error response has the body
 * `{ error, code, details? }`; `docs/api.md` lists the same codes (a test keeps them in sync).
 */
export const errorCodes = {
  invalid_request: { status: 400, meaning: 'The request is malformed: a body that is not JSON, a field missing or invalid, an unknown field or parameter.' },
  unauthorized: { status: 401, meaning: 'The Authorization header is missing or malformed, or its key is unknown, revoked or expired.' },
  forbidden: { status: 403, meaning: 'The key lacks the scope the operation needs, or is limited to addresses the request did not come from.' },
  not_found: { status: 404, meaning: 'No such resource, or it belongs to an organization the key cannot see.' },
  conflict: { status: 409, meaning: 'The resource is not in a state that allows the operation; the message says why.' },
  project_not_configured: { status: 409, meaning: 'The project lacks a setting the operation needs; the message names it.' },
  payload_too_large: { status: 413, meaning: 'The body is larger than the configured limit.' },
  rate_limited: { status: 429, meaning: 'The operation’s rate limit is used up; Retry-After says when to retry.' },
  internal: { status: 500, meaning: 'A bug; the details are only in the server log.' },
  unavailable: { status: 503, meaning: 'The database cannot be reached; retry after Retry-After seconds.' },
} as const;

export type ErrorCode = keyof typeof errorCodes;

/** Each code's HTTP status, read from the registry. */
export const errorStatus = Object.fromEntries(Object.entries(errorCodes).map(([code, { status }]) => [code, status])) as {
  [Code in ErrorCode]: (typeof errorCodes)[Code]['status'];
};

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: ErrorDetail[];
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return errorStatus[this.code];
  }

  toBody(): ErrorBody {
    return this.details ? { error: this.message, code: this.code, details: this.details } : { error: this.message, code: this.code };
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} was not found, or this API key cannot see it.`);
export const invalidRequest = (message: string, details?: ErrorDetail[]) => new ApiError('invalid_request', message, { details });
export const conflict = (message: string) => new ApiError('conflict', message);
