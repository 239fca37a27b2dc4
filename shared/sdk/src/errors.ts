import { redact, redactValue } from './redact';
import { ENDPOINTS } from './client/endpoints';
/** The service's error codes: the spec's ten (section 7). The client's own are ClientErrorCode. */
export const SERVICE_ERROR_CODES = [
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'EXPIRED_API_KEY',
  'RATE_LIMITED',
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'CONFLICT',
  'BATCH_ARCHIVED',
  'QUOTA_EXCEEDED',
  'PLAN_LIMIT_EXCEEDED',
] as const;
export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];
/**
 * NOT_SENT: issueMany held the item back (an earlier failure, an invalid item, a cancelled run).
 * UNEXPECTED_RESPONSE: a 2xx answer the core cannot read (a wrapper it does not know, an HTML
 * page from a proxy); nothing was assumed from it, and an issue call's outcome is unknown.
 * TRANSPORT_ERROR: the host's HTTP function threw something that is not a network failure.
 * IN_FLIGHT_ELSEWHERE: issueMany did not send the item because another run held its email until
 * this run stopped waiting, or ended with its outcome unknown; it may have been issued there
 * (an unknown outcome, issue/in-flight.ts).
 */
export type ClientErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'UNKNOWN' | 'NOT_SENT' | 'UNEXPECTED_RESPONSE' | 'TRANSPORT_ERROR' | 'IN_FLIGHT_ELSEWHERE';
export type ErrorCode = ServiceErrorCode | ClientErrorCode;
/** A known code, or one the service sent that this version does not know (kept as sent). */
export type AnyErrorCode = ErrorCode | (string & {});

/**
 * Where a call failed:
 * - `validation`: refused before anything was sent (bad input, or an item issueMany held back);
 * - `request`: no reliable answer came back (no connection, a network error, a timeout, or a
 *   5xx to a call that is not repeated);
 * - `transport`: the host's HTTP function failed in a way of its own (not a network failure);
 * - `response`: the service answered with an error.
 */
export type ErrorPhase = 'validation' | 'request' | 'transport' | 'response';

/** Which request failed, so an "outcome unknown" error names what may have happened. */
export interface RequestIdentity {
  method: string;
  path: string;
  /** The endpoint's route template (client/endpoints.ts), e.g. `/webhooks/subscriptions`. */
  route?: string;
  /** For issue calls: the emails of the recipients the request carried. */
  recipients?: string[];
}

export interface ErrorInit {
  code: AnyErrorCode;
  message: string;
  /** Defaults to `response` when a status is given, else `request`. */
  phase?: ErrorPhase;
  status?: number;
  detail?: Record<string, unknown>;
  retryAfterSeconds?: number;
  /** The service's `RateLimit-Limit` (requests per window) when it sent one. */
  rateLimit?: number;
  outcomeUnknown?: boolean;
  request?: RequestIdentity;
  cause?: unknown;
  /** Strings to take out of the message, detail, request and cause (API key, signing secrets). */
  secrets?: ReadonlyArray<string | undefined>;
}

/**
 * An Error, or one made in another realm (a vm context, a jest worker, an isolate), where
 * `instanceof Error` is false for Node's own errors: read by shape, never by prototype.
 */
export function isErrorLike(value: unknown): value is Error {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string' && typeof (value as Error).name === 'string';
}

/**
 * A cause is kept only as what helps: its name, code and (redacted) message. A host's
 * error object (n8n's NodeApiError, an axios error) can carry the request's headers, so
 * it is never kept as it is.
 */
function redactCause(cause: unknown, secrets: ReadonlyArray<string | undefined>, depth = 0): unknown {
  if (cause instanceof CertificateServiceError) return redactError(cause, secrets);
  if (!isErrorLike(cause) || depth > 4) return undefined;
  const copy = new Error(redact(cause.message, secrets));
  copy.name = cause.name;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') (copy as { code?: string }).code = code;
  const inner = redactCause((cause as { cause?: unknown }).cause, secrets, depth + 1);
  if (inner !== undefined) (copy as { cause?: unknown }).cause = inner;
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

// --- Hints: what to tell the user, in words that fit every host ------------------
// Each host (Zapier app, n8n node, CLI, MCP server) adds its own words (where the key goes, which
// trigger holds what) from its own table, keyed by `hintTopic`.
const KEYS_PAGE = 'Settings → API keys in the Certificate Service web app';
// What to do, not what happened: the message (the service's, or FALLBACK_MESSAGES) says that,
// so the user does not read "not recognized" twice.
const AUTH_HINTS: Partial<Record<AnyErrorCode, string>> = {
  MISSING_API_KEY: `Keys are made under ${KEYS_PAGE}.`,
  INVALID_API_KEY: `Copy the whole key again, or make a new one under ${KEYS_PAGE}.`,
  EXPIRED_API_KEY: `Make a new key under ${KEYS_PAGE}.`,
};
const DEFAULT_RATE_LIMIT = 120; // spec section 8: 120 requests per minute per API key

/**
 * What a hint is about, for hosts that add their own words to it (what holds a subscription in
 * that host, how it issues again): the core's hint says only what holds everywhere.
 * `issue-unknown` is an issue call whose outcome is unknown (this run's, or, with IN_FLIGHT_ELSEWHERE,
 * another run's); `outcome-unknown` any other call's;
 * `unknown-variable` a data key the design does not list (each host names its own way to allow it).
 */
export type HintTopic = 'auth' | 'issue-unknown' | 'outcome-unknown' | 'subscription-limit' | 'rate-limit' | 'unexpected-response' | 'unreachable' | 'unknown-variable';

// The message (the service's) says the limit was reached; the hint only what to do.
const SUBSCRIPTION_LIMIT_HINT = 'Free one: delete a webhook subscription that nothing uses any more.';

export class CertificateServiceError extends Error {
  /** The service's code (one this version does not know is kept as sent), or the client's own (ClientErrorCode). */
  readonly code: AnyErrorCode;
  readonly phase: ErrorPhase;
  /** HTTP status; 0 when no response arrived or the request was never sent. */
  readonly status: number;
  readonly detail: Record<string, unknown>;
  readonly retryAfterSeconds?: number;
  readonly rateLimit?: number;
  readonly request?: RequestIdentity;
  readonly #outcomeUnknown: boolean;

  constructor(init: ErrorInit) {
    const secrets = init.secrets ?? [];
    super(redact(init.message, secrets));
    this.name = 'CertificateServiceError';
    this.code = init.code;
    this.status = init.status ?? 0;
    this.phase = init.phase ?? (this.status ? 'response' : 'request');
    this.detail = (redactValue(init.detail ?? {}, secrets) as Record<string, unknown>) ?? {};
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.rateLimit !== undefined) this.rateLimit = init.rateLimit;
    this.#outcomeUnknown = init.outcomeUnknown ?? false;
    if (init.request) this.request = redactValue(init.request, secrets) as RequestIdentity;
    const cause = redactCause(init.cause, secrets);
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }

  /** The offending input field, when the service or the validator named one. */
  get field(): string | undefined {
    return typeof this.detail.field === 'string' ? this.detail.field : undefined;
  }

  /**
   * True when a call that changes something (issue) may or may not have been applied:
   * it was sent and no reliable answer came back. It was not repeated.
   */
  get outcomeUnknown(): boolean {
    return this.#outcomeUnknown;
  }

  get isAuthError(): boolean {
    return this.code === 'MISSING_API_KEY' || this.code === 'INVALID_API_KEY' || this.code === 'EXPIRED_API_KEY';
  }

  get isNotFound(): boolean {
    return this.code === 'NOT_FOUND' || (this.phase === 'response' && (this.status === 404 || this.status === 410));
  }

  get isRateLimited(): boolean {
    return this.code === 'RATE_LIMITED' || this.status === 429;
  }

  /** What the hint is about, so a host can add its own words (see HintTopic). */
  get hintTopic(): HintTopic | undefined {
    if (this.isAuthError) return 'auth';
    if (this.outcomeUnknown) return this.request?.recipients || this.code === 'IN_FLIGHT_ELSEWHERE' ? 'issue-unknown' : 'outcome-unknown';
    if (this.code === 'PLAN_LIMIT_EXCEEDED' && this.request?.method === ENDPOINTS.createSubscription.method && this.request.route === ENDPOINTS.createSubscription.route) return 'subscription-limit';
    if (this.isRateLimited) return 'rate-limit';
    if (this.code === 'UNEXPECTED_RESPONSE') return 'unexpected-response';
    if (this.detail.connect !== undefined) return 'unreachable';
    if (this.code === 'VALIDATION_ERROR' && Array.isArray(this.detail.unknownVariables)) return 'unknown-variable';
    return undefined;
  }

  /** What the user should do next, in words that fit every host, or '' when the message says it all. */
  get hint(): string {
    if (this.isAuthError) return AUTH_HINTS[this.code] ?? '';
    if (this.outcomeUnknown) {
      // Only an issue call carries recipients; for any other call, issuing advice would mislead.
      const issueAgain = 'Check the batch before issuing again: issuing the same list again, skipping the emails already in the batch, issues only what is missing.';
      if (this.code === 'IN_FLIGHT_ELSEWHERE') return `It was not sent here, so nothing is issued twice. ${issueAgain}`;
      return this.request?.recipients ? `It was not repeated, so nothing is applied twice. ${issueAgain}` : 'It was not repeated, so nothing is applied twice. Check whether it took effect before trying again.';
    }
    if (this.hintTopic === 'subscription-limit') return SUBSCRIPTION_LIMIT_HINT;
    if (this.isRateLimited) {
      const wait = this.retryAfterSeconds !== undefined ? `in ${this.retryAfterSeconds} s` : 'in a minute';
      return `The rate limit was reached: the service allows ${this.rateLimit ?? DEFAULT_RATE_LIMIT} requests per minute per API key. Try again ${wait}, or spread the work out.`;
    }
    if (this.hintTopic === 'unreachable') {
      // An https:// URL pointed at a plain-http server fails in the TLS handshake; OpenSSL's
      // words ("packet length too long") do not say so.
      if (String(this.detail.connect).startsWith('ERR_SSL_')) {
        return 'Nothing was sent. The server did not answer in TLS (HTTPS): is it a plain http:// server, such as a local sandbox? Then use an http:// base URL (allowed only for localhost).';
      }
      return 'Nothing was sent. Check the base URL (it ends in /api/v1) and that the service can be reached from here.';
    }
    if (this.hintTopic === 'unknown-variable') {
      return 'Correct the name to one of the design\'s variables. Only if the design\'s list is incomplete, or the service is meant to take this data as it is, allow variables the design does not list.';
    }
    if (this.code === 'TRANSPORT_ERROR') return 'It was not repeated. The HTTP layer of the host running this connector failed; try again, and report it if it persists.';
    if (this.code === 'UNEXPECTED_RESPONSE') {
      return 'Nothing was assumed from that answer. Check that the Base URL is the Certificate Service API (it ends in /api/v1), not a proxy or a sign-in page; if it is, the service has changed how it answers: report this message to the connector\'s maintainers.';
    }
    return '';
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      phase: this.phase,
      status: this.status,
      message: this.message,
      detail: this.detail,
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
      ...(this.rateLimit !== undefined ? { rateLimit: this.rateLimit } : {}),
      ...(this.outcomeUnknown ? { outcomeUnknown: true } : {}),
      ...(this.request ? { request: this.request } : {}),
    };
  }
}

/** True for the core's not-found (a 404 or 410, or NOT_FOUND) on anything thrown: a search's "nothing found". */
export function isNotFound(error: unknown): boolean {
  return error instanceof CertificateServiceError && error.isNotFound;
}

/** A host's own words for some hint topics (its key field, its triggers, its commands). */
export type HostWords = Partial<Record<HintTopic, string>>;

/** The core's hint followed by the host's words for its topic: what a host shows as "what to do". */
export function hostHint(error: CertificateServiceError, words: HostWords): string {
  const topic = error.hintTopic;
  return [error.hint, topic ? words[topic] : undefined].filter(Boolean).join(' ');
}

/** The same error with every secret in `secrets` taken out (message, detail, request, cause). */
export function redactError(error: CertificateServiceError, secrets: ReadonlyArray<string | undefined>): CertificateServiceError {
  return new CertificateServiceError({ ...error.toJSON(), code: error.code, message: error.message, cause: error.cause, secrets });
}

/** A bad input caught before any request is sent, naming the field (`detail`: more facts for hosts to read). */
export function validationError(field: string, problem: string, detail: Record<string, unknown> = {}): CertificateServiceError {
  return new CertificateServiceError({
    code: 'VALIDATION_ERROR',
    phase: 'validation',
    message: `Invalid "${field}": ${problem}`,
    detail: { ...detail, field },
  });
}

// Used when the body carries no code: the spec leaves most statuses open (section 7).
function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'INVALID_API_KEY';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 400 || status === 422) return 'VALIDATION_ERROR';
  if (status === 404 || status === 410) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 402) return 'QUOTA_EXCEEDED';
  return 'UNKNOWN';
}

// Facts only: what to do next is the error's hint.
const FALLBACK_MESSAGES: Partial<Record<AnyErrorCode, string>> = {
  MISSING_API_KEY: 'The service refused the request: no API key was sent.',
  INVALID_API_KEY: 'The service does not recognize the API key.',
  EXPIRED_API_KEY: 'The API key has expired.',
  RATE_LIMITED: 'Too many requests with this API key.',
};

/** A body that is not JSON (an HTML error page from a proxy, say) as one short line of text. */
function bodyText(body: unknown, secrets: ReadonlyArray<string | undefined>): string {
  if (typeof body !== 'string') return '';
  // Redacted before it is cut short, so no part of a secret survives the cut.
  const text = redact(body, secrets).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Maps a non-2xx response (any body, even none) to a typed error. */
export function errorFromResponse(response: {
  status: number;
  body: unknown;
  retryAfterSeconds?: number;
  rateLimit?: number;
  request: RequestIdentity;
  secrets: ReadonlyArray<string | undefined>;
}): CertificateServiceError {
  const { status, body, secrets } = response;
  const envelope = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const code = typeof envelope.error === 'string' ? envelope.error : codeForStatus(status);
  const detail = envelope.detail && typeof envelope.detail === 'object' ? (envelope.detail as Record<string, unknown>) : {};
  let message = typeof envelope.message === 'string' && envelope.message ? envelope.message : undefined;
  if (!message) {
    const text = bodyText(body, secrets);
    message = FALLBACK_MESSAGES[code] ?? `The service answered HTTP ${status}${text ? `: ${text}` : ' with no error details'}.`;
  }
  return new CertificateServiceError({
    code,
    phase: 'response',
    status,
    message,
    detail,
    retryAfterSeconds: response.retryAfterSeconds,
    rateLimit: response.rateLimit,
    request: response.request,
    secrets,
  });
}
