/**
 * The one registry of error codes and their HTTP status. Every error response has the body
 * `{ error, code, details? }`; `docs/api.md` lists the same codes (a test keeps them in sync).
 */
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  project_not_configured: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

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
