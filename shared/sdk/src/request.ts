import { unexpected, type Decoder, type ResponseContext } from './decode';
import { CertificateServiceError, errorFromResponse, redactAnswer, type RequestIdentity, type SecretSet } from './errors';
import { jitterMs, othersBetween, parseRateLimit, parseRetryAfter, type RateLimitState } from './rate-limit';
import { DEFAULT_RETRY, isRepeatable, retryDecision, type AttemptResult, type RetryOptions } from './retry';
import type { HttpRequest, HttpResponse, Transport } from './transport';
import { getHeader } from './headers';

export type { RetryOptions } from './retry';

export interface RequesterOptions {
  baseUrl: string;
  transport: Transport;
  /** When set, the core sends `Authorization: Bearer`; hosts that authenticate themselves leave it out. */
  apiKey?: string;
  retry?: Partial<RetryOptions>;
  /**
   * How to wait (Retry-After, backoff, pacing). Required so the core uses no timer global:
   * n8n passes n8n-workflow's `sleep`, Zapier and standalone use a timer, tests a fake.
   */
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
  /** Extra strings that must never appear in error messages. */
  secrets?: string[];
}

export interface CallSpec {
  method: HttpRequest['method'];
  /** The path template, e.g. `/batches/{batchId}/recipients`: errors name the endpoint by it. */
  route: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** For issue calls: who the request was for, quoted in "outcome unknown" errors. */
  recipients?: string[];
  /** A POST that changes nothing (POST /auth), so it may be repeated like a GET. */
  safeToRepeat?: boolean;
  /** The answer hands out a signing secret (create, rotate): `wh_sec_…` values are kept in it. */
  handsOutSecret?: boolean;
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/** Finds a network failure in an error or its causes (hosts wrap them differently). */
export function classifyNetworkError(error: unknown): 'TIMEOUT' | 'NETWORK_ERROR' | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return 'TIMEOUT';
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'NETWORK_ERROR';
    if (name === 'TimeoutError' || name === 'AbortError') return 'TIMEOUT';
    if (typeof message === 'string' && /socket hang up|other side closed|fetch failed/i.test(message)) return 'NETWORK_ERROR';
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body ?? null;
  if (!body.trim()) return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/**
 * Sends one API call with the service's rules (auth header, JSON, pacing on
 * `RateLimit-Remaining: 0`, bounded retries by `retryDecision`, error mapping) and reads the
 * answer with the call's decoder. Errors leave here unredacted except where text is cut
 * short; the client redacts everything at its exit.
 */
export class Requester {
  readonly baseUrl: string;
  readonly rate: RateLimitState = {};
  private readonly retry: RetryOptions;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly options: RequesterOptions,
    /** Taken out of every answer before it is read, so neither outputs nor errors carry them. */
    private readonly secrets: SecretSet,
  ) {
    this.baseUrl = options.baseUrl;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep;
    this.now = options.now ?? Date.now;
  }

  url(path: string, query?: CallSpec['query']): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  async call<T>(spec: CallSpec, decode: Decoder<T>): Promise<T> {
    const identity: RequestIdentity = { method: spec.method, path: spec.path, ...(spec.recipients ? { recipients: spec.recipients } : {}) };
    const repeatable = isRepeatable(spec.method, spec.safeToRepeat);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    const request: HttpRequest = {
      method: spec.method,
      url: this.url(spec.path, spec.query),
      headers,
      ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
    };

    let waited = 0;
    let unsure = false; // an earlier attempt may have been applied (5xx, reset, timeout)
    for (let attempt = 0; ; attempt++) {
      waited += await this.pace(this.retry.maxWaitMs - waited);
      let response: HttpResponse;
      try {
        response = await this.options.transport(request);
      } catch (error) {
        const failure = classifyNetworkError(error);
        if (!failure) throw error; // a host's own error (e.g. Zapier's ThrottledError) passes through unchanged
        const decision = retryDecision({ method: spec.method, safeToRepeat: spec.safeToRepeat, attempt, waitedMs: waited, result: { kind: 'network', failure }, options: this.retry });
        if (decision.retry) {
          await this.sleep(decision.delayMs);
          waited += decision.delayMs;
          unsure = true;
          continue;
        }
        throw this.networkError(failure, error, identity, repeatable);
      }

      const now = this.now();
      const limits = parseRateLimit(response.headers, now);
      if (limits.remaining !== undefined) {
        const others = othersBetween(this.rate, limits);
        Object.assign(this.rate, limits, others === undefined ? {} : { others });
      }
      const body = redactAnswer(parseBody(response.body), this.secrets.list(), spec.handsOutSecret === true);
      const context: ResponseContext = {
        endpoint: `${spec.method} ${spec.route}`,
        status: response.status,
        contentType: (getHeader(response.headers, 'Content-Type') ?? '').split(';')[0].trim(),
        issues: spec.recipients !== undefined,
        date: getHeader(response.headers, 'Date'),
      };
      if (response.status >= 200 && response.status < 300) return decodeOrFail(decode, body, context);
      // A DELETE repeated after an answer that may have been applied finds nothing: the
      // first attempt deleted it. That is the outcome the caller asked for.
      if (unsure && spec.method === 'DELETE' && response.status === 404) return decodeOrFail(decode, { alreadyDeleted: true }, context);

      const retryAfter = parseRetryAfter(getHeader(response.headers, 'Retry-After'), now);
      const result: AttemptResult = { kind: 'status', status: response.status, retryAfterSeconds: retryAfter };
      const decision = retryDecision({ method: spec.method, safeToRepeat: spec.safeToRepeat, attempt, waitedMs: waited, result, options: this.retry, jitterMs: jitterMs() });
      if (decision.retry) {
        await this.sleep(decision.delayMs);
        waited += decision.delayMs;
        if (response.status >= 500) unsure = true;
        continue;
      }
      const error = errorFromResponse({ status: response.status, body, retryAfterSeconds: retryAfter, rateLimit: limits.limit, request: identity, secrets: this.secrets.list() });
      if (response.status >= 500 && !repeatable) throw this.unknownOutcome(error, identity);
      throw error;
    }
  }
  /**
   * Waits for the window reset when the last response left no request for us: none remain,
   * or no more than other clients on this key (`rate.others`) use before ours arrives. Then
   * several clients sharing a key (n8n workers) stop before the limiter refuses them, and
   * each wakes at a slightly different time (jitter) instead of all at once.
   */
  private async pace(budgetMs: number): Promise<number> {
    const { remaining, resetAt, others = 0 } = this.rate;
    if (remaining === undefined || resetAt === undefined || remaining > others) return 0;
    const wait = resetAt - this.now() + (others > 0 ? jitterMs() : 0);
    this.rate.remaining = undefined; // one wait per reported exhaustion
    if (wait <= 0 || wait > budgetMs) return 0;
    await this.sleep(wait);
    return wait;
  }

  private networkError(kind: 'TIMEOUT' | 'NETWORK_ERROR', cause: unknown, identity: RequestIdentity, idempotent: boolean) {
    const what = kind === 'TIMEOUT' ? 'timed out' : 'failed before a response arrived';
    const reason = cause instanceof Error ? ` (${cause.message})` : '';
    const error = new CertificateServiceError({
      code: kind,
      phase: 'request',
      message: `${identity.method} ${identity.path} ${what}${reason}.`,
      request: identity,
      cause,
    });
    return idempotent ? error : this.unknownOutcome(error, identity);
  }

  private unknownOutcome(error: CertificateServiceError, identity: RequestIdentity): CertificateServiceError {
    const who = identity.recipients?.length
      ? ` for ${identity.recipients.length === 1 ? identity.recipients[0] : `${identity.recipients.length} recipients (${identity.recipients[0]} …)`}`
      : '';
    // The advice (not repeated, check before re-running) is the error's `hint`, written once.
    return new CertificateServiceError({
      code: error.code,
      phase: 'request',
      status: error.status,
      detail: error.detail,
      request: identity,
      outcomeUnknown: true,
      cause: error,
      message: `Outcome unknown: ${identity.method} ${identity.path}${who} was sent but no reliable answer came back (${error.message}).`,
    });
  }
}

/** Decodes a 2xx body; a decoder that fails on something it did not foresee still says what came back. */
function decodeOrFail<T>(decode: Decoder<T>, body: unknown, context: ResponseContext): T {
  try {
    return decode(body, context);
  } catch (error) {
    if (error instanceof CertificateServiceError) throw error;
    throw unexpected(context, body, 'an answer this version can read');
  }
}
