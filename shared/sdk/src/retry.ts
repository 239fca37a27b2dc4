// When to send a request again: one pure function of (method, attempt, result), so the
// whole policy reads as a table (test/sdk/retry-decision.test.ts).

export interface RetryOptions {
  /** Retries per request (429 for any method; network errors and 5xx for GET/DELETE only). */
  maxRetries: number;
  /** Total time one request may spend waiting (Retry-After, backoff, pacing). */
  maxWaitMs: number;
  /** First backoff delay for network errors and 5xx; doubles each time. */
  baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 5, maxWaitMs: 120_000, baseDelayMs: 500 };

/** What one attempt ended with. */
export type AttemptResult =
  /** `connect`: the code when no connection was made (ECONNREFUSED, ENOTFOUND, a connect timeout…). */
  | { kind: 'network'; failure: 'TIMEOUT' | 'NETWORK_ERROR'; connect?: string }
  | { kind: 'status'; status: number; retryAfterSeconds?: number };

export interface RetryInput {
  method: string;
  /** A POST that changes nothing (POST /auth) may be repeated like a GET. */
  safeToRepeat?: boolean;
  /** 0 for the first attempt. */
  attempt: number;
  /** Time already spent waiting for this request. */
  waitedMs: number;
  result: AttemptResult;
  options: RetryOptions;
  /** Added to a 429's wait so clients sharing a key do not all return at once. */
  jitterMs?: number;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** Connection failures worth one more quick try: nothing listening yet, a name or route that flickers. */
const CONNECT_RETRIES: Record<string, number> = { ECONNREFUSED: 2, EAI_AGAIN: 2, EHOSTUNREACH: 1, ENETUNREACH: 1 };

/**
 * Only GET and DELETE (and a POST marked safe) are repeated after an answer that may not
 * be the service's last word (a network error, a timeout, a 5xx): a POST that issues has no
 * idempotency key in this API, so repeating it could issue, and bill, a certificate twice.
 * A 429 is repeated for every method: the service refused the request, so nothing happened.
 * So is a failure to connect, briefly: nothing was sent. A name that does not resolve and a
 * connect timeout are not repeated, so a wrong or dead base URL fails within seconds.
 */
export function retryDecision(input: RetryInput): RetryDecision {
  const { attempt, waitedMs, result, options } = input;
  if (attempt >= options.maxRetries) return { retry: false };
  let delayMs: number;
  if (result.kind === 'status' && result.status === 429) {
    delayMs = (result.retryAfterSeconds ?? 1) * 1000 + (input.jitterMs ?? 0);
  } else if (result.kind === 'network' && result.connect) {
    if (attempt >= (CONNECT_RETRIES[result.connect] ?? 0)) return { retry: false };
    delayMs = options.baseDelayMs * 2 ** attempt;
  } else if (result.kind === 'network' || result.status >= 500) {
    if (!isRepeatable(input.method, input.safeToRepeat)) return { retry: false };
    delayMs = options.baseDelayMs * 2 ** attempt;
  } else {
    return { retry: false };
  }
  return waitedMs + delayMs <= options.maxWaitMs ? { retry: true, delayMs } : { retry: false };
}

export function isRepeatable(method: string, safeToRepeat?: boolean): boolean {
  return method === 'GET' || method === 'DELETE' || safeToRepeat === true;
}
