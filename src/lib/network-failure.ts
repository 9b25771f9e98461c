/** Node's system errors (ENOTFOUND, ECONNREFUSED, ETIMEDOUT, EAI_AGAIN…), undici's (UND_ERR_*) and TLS failures. */
const networkCode = /^(E[A-Z]+|EAI_[A-Z]+|UND_ERR_[A-Z_]+|ERR_(TLS|SSL)_[A-Z_]+)$/;
const maxDescription = 200;

interface Failure {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

/**
 * What kept a request from getting any answer, as Node words it (`getaddrinfo ENOTFOUND api.example.invalid`,
 * `connect ECONNREFUSED 127.0.0.1:8080`), or null when the server answered or the error is not a network one.
 * Clients wrap these errors differently (Octokit as an HTTP 500 without a response, fetch as `TypeError: fetch
 * failed`), so the cause chain is searched. Such messages name the host and port, never headers or tokens.
 */
export function networkFailure(error: unknown): string | null {
  let fetchFailed = false;
  let current = error as Failure | undefined;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const message = typeof current.message === 'string' ? current.message : '';
    if (current.name === 'TimeoutError' || current.name === 'AbortError') return 'no answer in time';
    if (typeof current.code === 'string' && networkCode.test(current.code)) {
      return cut(message.includes(current.code) ? message : `${message} (${current.code})`);
    }
    if (current.name === 'TypeError' && message === 'fetch failed') fetchFailed = true;
    else if (fetchFailed && message) return cut(message);
    current = current.cause as Failure | undefined;
  }
  return fetchFailed ? 'fetch failed' : null;
}

function cut(text: string): string {
  return text.length > maxDescription ? `${text.slice(0, maxDescription - 1)}…` : text;
}
