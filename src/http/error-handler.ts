import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailableError } from '../storage/dialect.ts';
import { ApiError, errorStatus, type ErrorCode, type ErrorDetail } from './errors.ts';

/** Fastify's own request errors, translated into the contract's codes and sentences. */
const fastifyErrors: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'invalid_request', message: 'Send the body as JSON with "Content-Type: application/json".' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_request', message: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', message: 'The body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_request', message: 'The body is empty; send a JSON object.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: 'The body is larger than this server accepts; send less per request.' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'invalid_request', message: 'The Content-Type header is malformed.' },
  // Raised before routing (see `frameworkErrorHandler`).
  FST_ERR_BAD_URL: { code: 'invalid_request', message: 'The URL holds a malformed percent-encoding (such as %zz); encode the path again.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'invalid_request', message: 'A path segment of the URL is longer than any identifier or name this API takes.' },
};

/**
 * PostgreSQL's refusals of a text it cannot store: a NUL character or an invalid byte sequence
 * (`22021`), or a character it cannot translate, such as `\u0000` in JSON (`22P05`). Inputs are checked
 * where they are validated (lib/storable-text.ts); this answers for any text that reaches a statement
 * unchecked, and the statement's transaction has then stored nothing of the request.
 */
const unstorableTextCodes = new Set(['22021', '22P05']);
const isUnstorableText = (error: unknown) =>
  typeof error === 'object' && error !== null && 'severity' in error && unstorableTextCodes.has((error as { code?: string }).code ?? '');

/** What each part of a request is called in an error a person reads. */
const partNames: Record<string, string> = { querystring: 'query parameter', params: 'path parameter', body: 'field', headers: 'header' };

type ValidationIssue = NonNullable<FastifyError['validation']>[number] & { schema?: unknown };

/** Listed in an error before the rest are counted. */
const maxListedValues = 30;

/**
 * The values an enum (`Type.Enum`), a union of constants (`Type.Union` of `Type.Literal`, null
 * included) or a constant allows, from the issue that refused a value; null for any other issue.
 */
function allowedValues(issue: ValidationIssue): unknown[] | null {
  const params = issue.params as { allowedValues?: unknown; allowedValue?: unknown };
  if (issue.keyword === 'enum' && Array.isArray(params.allowedValues)) return params.allowedValues;
  if (issue.keyword === 'const') return [params.allowedValue];
  if (issue.keyword !== 'anyOf' || !Array.isArray(issue.schema)) return null;
  const branches = issue.schema as { const?: unknown; type?: unknown }[];
  if (!branches.every((branch) => 'const' in branch || branch.type === 'null')) return null;
  return branches.map((branch) => ('const' in branch ? branch.const : null));
}

function oneOf(values: unknown[]): string {
  const words = values.slice(0, maxListedValues).map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
  const more = values.length > maxListedValues ? `, … (${values.length} in all)` : '';
  return words.length === 1 ? `must be ${words[0]}` : `must be one of ${words.join(', ')}${more}`;
}

function validationDetails(error: FastifyError): ErrorDetail[] {
  const issues = (error.validation ?? []) as ValidationIssue[];
  // A union of constants reports each branch's refusal before its own: the union's issue, listing them all, stands for those.
  const unions = new Set(issues.filter((issue) => issue.keyword === 'anyOf' && allowedValues(issue)).map((issue) => issue.instancePath));
  const shown = issues.filter((issue) => !(unions.has(issue.instancePath) && (issue.keyword === 'const' || issue.keyword === 'type')));
  return shown.map((issue) => {
    const params = issue.params as Record<string, unknown>;
    const allowed = allowedValues(issue);
    if (allowed) return { path: issue.instancePath || '/', message: oneOf(allowed) };
    if (typeof params.additionalProperty !== 'string') return { path: issue.instancePath || '/', message: issue.message ?? 'is invalid' };
    // The validator runs verbose, so an unknown name can be answered with the names that are known.
    const { parentSchema } = issue as { parentSchema?: { properties?: object } };
    const known = Object.keys(parentSchema?.properties ?? {});
    const message = known.length > 0 ? `is not known; the known ones are ${known.join(', ')}` : 'is not known';
    return { path: `${issue.instancePath}/${params.additionalProperty}`, message };
  });
}

/** "The query parameter limit must be <= 100." rather than a validator's "querystring is invalid". */
function validationMessage(error: FastifyError, first: ErrorDetail): string {
  const part = partNames[error.validationContext ?? ''] ?? 'request';
  if (first.path === '/') return `The ${part === 'field' ? 'body' : `${part}s`} ${first.message}.`;
  return `The ${part} ${first.path.slice(1).replaceAll('/', '.')} ${first.message}.`;
}

/** Any error as the contract's code, status and sentence; the API and the dashboard both answer with it. */
export function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const details = validationDetails(error);
    return new ApiError('invalid_request', validationMessage(error, details[0]), { details });
  }
  const known = error.code ? fastifyErrors[error.code] : undefined;
  if (known) return new ApiError(known.code, known.message);
  if (error instanceof SyntaxError && error.statusCode === 400) return new ApiError('invalid_request', 'The body is not valid JSON.');
  if (isUnstorableText(error)) {
    return new ApiError(
      'invalid_request',
      'A text in the request holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored; remove it and send the request again.',
    );
  }
  if (error instanceof DatabaseUnavailableError) {
    return new ApiError('unavailable', 'The service cannot reach its database right now; retry in a few seconds.', { headers: { 'retry-after': '5' } });
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = (Object.keys(errorStatus) as ErrorCode[]).find((candidate) => errorStatus[candidate] === status) ?? 'invalid_request';
    return new ApiError(code, error.message);
  }
  return new ApiError('internal', 'Something went wrong on the server; the error was logged. Retry, and report it if it persists.');
}

/**
 * Fastify's `frameworkErrors` option: errors it raises before a route is found (a malformed URL, a
 * path parameter past its length), which the error handler below never sees, answered in the
 * contract's body too.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(error);
  // The app's hooks do not run for these answers: the headers every answer carries (server/app.ts) are set here.
  const everyAnswer = { 'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff' };
  void reply
    .code(apiError.status)
    .headers({ ...everyAnswer, ...apiError.headers })
    .send(apiError.toBody());
}

/** One handler for every error: the contract's body, and 5xx details only in the log. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // The request stream itself failed: the client hung up before its body arrived. Nothing went
    // wrong here, and nobody is left to read the answer.
    if (request.raw.errored === error) {
      request.log.debug({ code: error.code }, 'client closed the connection before its request was read');
      return reply.code(400).send(new ApiError('invalid_request', 'The request ended before its body was complete; send it again.').toBody());
    }
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(apiError.status).headers(apiError.headers).send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const apiError = new ApiError('not_found', `There is no ${request.method} ${request.url.split('?')[0]} operation; see /docs for the API reference.`);
    return reply.code(404).send(apiError.toBody());
  });
}
