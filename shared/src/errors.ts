/** Error codes: the spec's ten (section 7) plus the client-side ones. */
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
export type ClientErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'UNKNOWN';
export type ErrorCode = ServiceErrorCode | ClientErrorCode;

/** Which request failed, so an "outcome unknown" error names what may have happened. */
export interface RequestIdentity {
  method: string;
  path: string;
  /** For issue calls: the emails of the recipients the request carried. */
  recipients?: string[];
}

export interface ErrorInit {
  code: ErrorCode | string;
  message: string;
  status?: number;
  detail?: Record<string, unknown>;
  retryAfterSeconds?: number;
  outcomeUnknown?: boolean;
  request?: RequestIdentity;
  cause?: unknown;
}

export class CertificateServiceError extends Error {
  /** The service's stable code, or NETWORK_ERROR / TIMEOUT / UNKNOWN. */
  readonly code: ErrorCode | string;
  /** HTTP status; 0 when no response arrived or the request was never sent. */
  readonly status: number;
  readonly detail: Record<string, unknown>;
  readonly retryAfterSeconds?: number;
  /**
   * True when a non-idempotent call (issue) may or may not have been applied:
   * the connection broke or the server failed after the request was sent.
   */
  readonly outcomeUnknown: boolean;
  readonly request?: RequestIdentity;

  constructor(init: ErrorInit) {
    super(init.message);
    this.name = 'CertificateServiceError';
    this.code = init.code;
    this.status = init.status ?? 0;
    this.detail = init.detail ?? {};
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
    this.request = init.request;
    if (init.cause !== undefined) (this as { cause?: unknown }).cause = init.cause;
  }

  /** The offending input field, when the service or the validator named one. */
  get field(): string | undefined {
    return typeof this.detail.field === 'string' ? this.detail.field : undefined;
  }

  get isAuthError(): boolean {
    return this.code === 'MISSING_API_KEY' || this.code === 'INVALID_API_KEY' || this.code === 'EXPIRED_API_KEY';
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      status: this.status,
      message: this.message,
      detail: this.detail,
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
      ...(this.outcomeUnknown ? { outcomeUnknown: true } : {}),
      ...(this.request ? { request: this.request } : {}),
    };
  }
}

/** A bad input caught before any request is sent, naming the field. */
export function validationError(field: string, problem: string): CertificateServiceError {
  return new CertificateServiceError({
    code: 'VALIDATION_ERROR',
    message: `Invalid "${field}": ${problem}`,
    detail: { field },
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

const HINTS: Partial<Record<ErrorCode, string>> = {
  MISSING_API_KEY: 'No API key was sent. Add the API key to the credential.',
  INVALID_API_KEY: 'The API key is not recognized. Check it, or create a new one under the API keys settings.',
  EXPIRED_API_KEY: 'The API key has expired. Create a new one under the API keys settings.',
};

/** Maps a non-2xx response (any body, even none) to a typed error. */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterSeconds: number | undefined,
  request: RequestIdentity,
): CertificateServiceError {
  const envelope = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const rawCode = typeof envelope.error === 'string' ? envelope.error : undefined;
  const code = rawCode ?? codeForStatus(status);
  const detail =
    envelope.detail && typeof envelope.detail === 'object' ? (envelope.detail as Record<string, unknown>) : {};
  let message = typeof envelope.message === 'string' && envelope.message ? envelope.message : undefined;
  if (!message) {
    const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
    message = HINTS[code as ErrorCode] ?? `The service answered HTTP ${status}${text ? `: ${text}` : ' with no error details'}.`;
  }
  if (code === 'RATE_LIMITED' && retryAfterSeconds !== undefined) {
    message = `${message} (retry after ${retryAfterSeconds} s)`;
  }
  return new CertificateServiceError({ code, status, message, detail, retryAfterSeconds, request });
}
