import { unexpected, type Decoder, type ResponseContext } from './decode';
import { CertificateServiceError, errorFromResponse, type RequestIdentity } from './errors';
import { redactAnswer, type SecretSet } from './redact';
import { jitterMs, othersBetween, parseRateLimit, parseRetryAfter, type RateLimitState } from './rate-limit';
import { DEFAULT_RETRY, isRepeatable, retryDecision, type AttemptResult, type RetryOptions } from './retry';
import type { HttpRequest, HttpResponse, Transport } from './transport';
import { getHeader } from './headers';
import { classifyNetworkError, connectFailure, networkError, transportError, unknownOutcome } from './network-errors';
import { endpointName, type Endpoint } from './client/endpoints';
import { apiKeyFrom, requireString } from './validation';
import type { Api } from './client/api';

export type { RetryOptions } from './retry';

export interface RequesterOptions {
  baseUrl: string;
  transport: Transport;
  /** When set, the core sends `Authorization: Bearer` with it, trimmed; hosts that authenticate themselves leave it out. */
  apiKey?: string;
  retry?: Partial<RetryOptions>;
  /**
   * How to wait (Retry-After, backoff, pacing). Required so the core uses no timer global:
   * n8n passes n8n-workflow's `sleep`, Zapier and `createClient` use a timer, tests a fake.
   */
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
  /** Extra strings that must never appear in error messages. */
  secrets?: string[];
}

export interface CallSpec {
  /** Which endpoint (client/endpoints.ts): its method and route; errors name it by the route. */
  endpoint: Endpoint;
  /** The values of the route's `{name}`s (ids), checked and encoded by `pathOf`. */
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** For issue calls: who the request was for, quoted in "outcome unknown" errors. */
  recipients?: string[];
  /** The answer hands out a signing secret (create, rotate): `wh_sec_…` values are kept in it. */
  handsOutSecret?: boolean;
}

/**
 * The path of a call: each `{name}` of the route replaced by its value, checked first (a missing
 * id is a VALIDATION_ERROR naming the field, before any request), trimmed and URL-encoded.
 */
export function pathOf(endpoint: Endpoint, params: Readonly<Record<string, string>> = {}): string {
  return endpoint.route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(requireString(params[name], name)));
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
 * answer with the call's decoder. Every answer is redacted of the known secrets before it is
 * read, so neither a result nor an error made from it carries them; anything the transport
 * throws leaves as a CertificateServiceError. The client redacts every error once more at its
 * exit (a cause, a message quoting a request).
 */
export class Requester implements Api {
  readonly baseUrl: string;
  readonly rate: RateLimitState = {};
  private readonly retry: RetryOptions;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly options: RequesterOptions,
    /** Taken out of every answer before it is read, so neither outputs nor errors carry them; a resource adds the signing secrets it is handed. */
    readonly secrets: SecretSet,
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
    const { method, route, safeToRepeat } = spec.endpoint;
    const path = pathOf(spec.endpoint, spec.params);
    const identity: RequestIdentity = { method, path, route, ...(spec.recipients ? { recipients: spec.recipients } : {}) };
    const repeatable = isRepeatable(method, safeToRepeat);
    const headers: Record<string, string> = { Accept: 'application/json' };
    const apiKey = apiKeyFrom(this.options.apiKey);
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    const request: HttpRequest = {
      method,
      url: this.url(path, spec.query),
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
        // Anything else a host's HTTP function throws is not a network failure we understand: it
        // leaves as a CertificateServiceError (redacted at the client's exit), and is not repeated.
        if (!failure) throw transportError(error, identity, repeatable);
        const connect = connectFailure(error);
        const result: AttemptResult = { kind: 'network', failure, ...(connect ? { connect } : {}) };
        const decision = retryDecision({ method, safeToRepeat, attempt, waitedMs: waited, result, options: this.retry });
        if (decision.retry) {
          await this.sleep(decision.delayMs);
          waited += decision.delayMs;
          if (!connect) unsure = true;
          continue;
        }
        // Nothing was sent when the connection failed, so the outcome is known unless an earlier attempt got further.
        throw networkError(failure, error, identity, this.baseUrl, repeatable || (connect !== undefined && !unsure));
      }

      const now = this.now();
      const limits = parseRateLimit(response.headers, now);
      if (limits.remaining !== undefined) {
        const others = othersBetween(this.rate, limits);
        Object.assign(this.rate, limits, others === undefined ? {} : { others });
      }
      const body = redactAnswer(parseBody(response.body), this.secrets.list(), spec.handsOutSecret === true);
      const context: ResponseContext = {
        endpoint: endpointName(spec.endpoint),
        status: response.status,
        contentType: (getHeader(response.headers, 'Content-Type') ?? '').split(';')[0].trim(),
        issues: spec.recipients !== undefined,
        date: getHeader(response.headers, 'Date'),
      };
      if (response.status >= 200 && response.status < 300) return decodeOrFail(decode, body, context);
      // A DELETE repeated after an answer that may have been applied finds nothing: the
      // first attempt deleted it. That is the outcome the caller asked for.
      if (unsure && method === 'DELETE' && response.status === 404) return decodeOrFail(decode, { alreadyDeleted: true }, context);

      const retryAfter = parseRetryAfter(getHeader(response.headers, 'Retry-After'), now);
      const result: AttemptResult = { kind: 'status', status: response.status, retryAfterSeconds: retryAfter };
      const decision = retryDecision({ method, safeToRepeat, attempt, waitedMs: waited, result, options: this.retry, jitterMs: jitterMs() });
      if (decision.retry) {
        await this.sleep(decision.delayMs);
        waited += decision.delayMs;
        if (response.status >= 500) unsure = true;
        continue;
      }
      const error = errorFromResponse({ status: response.status, body, retryAfterSeconds: retryAfter, rateLimit: limits.limit, request: identity, secrets: this.secrets.list() });
      if (response.status >= 500 && !repeatable) throw unknownOutcome(error, identity);
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
