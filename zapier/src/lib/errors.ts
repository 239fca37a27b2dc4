import type { ZObject } from 'zapier-platform-core';
import { CertificateServiceError } from '@certificate-service/sdk/core';

// The one place where errors become Zapier errors.
//
// The core sees every HTTP status itself (the transport sets skipThrowForStatus and
// throwForThrottlingEarly: false), so its retries, pre-send validation and
// "outcome unknown" handling all apply; what reaches us is a typed
// CertificateServiceError, mapped here by the rules Zapier documents:
//   - z.errors.Error:           a real error the user must fix (counts towards turning a Zap off)
//   - z.errors.HaltedError:     bad input or an unmet precondition; stops the run but never
//                               turns the Zap off
//   - z.errors.ExpiredAuthError: the connection no longer works; Zapier holds the runs and
//                               emails the user to reconnect (custom auth has nothing to refresh,
//                               so RefreshAuthError, which is for OAuth2/session auth, does not apply)
//   - z.errors.ThrottledError:  Zapier retries the whole step after `delay` seconds

export interface ErrorContext {
  /** The connection test: every failure is shown in the connect dialog as a plain error. */
  authTest?: boolean;
}

/** Where users create keys (spec section 5): the web app's API keys settings. */
export const API_KEYS_HELP = 'Create a new key under Settings → API keys in the Certificate Service web app, then reconnect.';

const AUTH_MESSAGES: Record<string, string> = {
  MISSING_API_KEY: 'No API key was sent (MISSING_API_KEY). Enter your API key in the connection.',
  INVALID_API_KEY: 'The API key was not recognized (INVALID_API_KEY). Check that it was copied completely, or create a new one.',
  EXPIRED_API_KEY: 'The API key has expired (EXPIRED_API_KEY).',
};

/** Codes that describe the input or the state of a resource, not a broken integration. */
const HALT_CODES = new Set(['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'BATCH_ARCHIVED']);

/** Used when a 429 carries no Retry-After. */
export const DEFAULT_THROTTLE_SECONDS = 60;
/** At most this many seconds are added, so throttled Zaps do not all come back at once. */
export const MAX_JITTER_SECONDS = 10;

export function throttleDelay(retryAfterSeconds: number | undefined, random: () => number = Math.random): number {
  const base = retryAfterSeconds ?? DEFAULT_THROTTLE_SECONDS;
  return base + 1 + Math.floor(random() * MAX_JITTER_SECONDS);
}

/** The Zapier input field behind a field name the core or the service reports. */
const FIELD_LABELS: Record<string, string> = {
  baseUrl: 'API Base URL',
  batchId: 'Batch',
  designId: 'Design',
  title: 'Title',
  name: 'Recipient Name',
  email: 'Recipient Email',
  data: 'Certificate Variables',
  recipientId: 'Recipient ID',
  certificateId: 'Certificate ID',
  shareToken: 'Share Token',
  recipients: 'Recipients',
  update: 'Recipient Name, Recipient Email or Certificate Variables',
  body: 'Recipient Name, Recipient Email or Certificate Variables',
};

export function fieldLabel(field: string): string {
  const line = /^recipients\[(\d+)\]\.(.+)$/.exec(field);
  if (line) return `${fieldLabel(line[2])} (line ${Number(line[1]) + 1})`;
  const [head, ...rest] = field.split('.');
  const label = FIELD_LABELS[head] ?? field;
  return rest.length ? `${label} (${rest.join('.')})` : label;
}

/** The message, plus which input field to fix when the core or the service named one. */
function withField(error: CertificateServiceError): string {
  const field = error.field;
  if (!field) return error.message;
  return `${error.message.replace(/[.\s]*$/, '')}. Check the ${fieldLabel(field)} field.`;
}

export function authMessage(error: CertificateServiceError): string {
  return `${AUTH_MESSAGES[error.code] ?? error.message} ${API_KEYS_HELP}`;
}

/** Maps any error thrown while running an operation; errors that are not the core's pass through. */
export function toZapierError(z: ZObject, error: unknown, context: ErrorContext = {}): Error {
  if (!(error instanceof CertificateServiceError)) return error instanceof Error ? error : new Error(String(error));
  const status = error.status || undefined;

  if (error.isAuthError) {
    const message = authMessage(error);
    return context.authTest ? new z.errors.Error(message, error.code, 401) : new z.errors.ExpiredAuthError(message);
  }
  // An issue call whose outcome is unknown must not be retried automatically: it could
  // issue (and bill) the certificate twice. The user checks and replays it by hand.
  if (error.outcomeUnknown) return new z.errors.Error(error.message, error.code, status);
  if (error.code === 'RATE_LIMITED') {
    return new z.errors.ThrottledError(
      `The Certificate Service rate limit was reached (120 requests per minute per API key). ${error.message}`,
      throttleDelay(error.retryAfterSeconds),
    );
  }
  if (HALT_CODES.has(error.code) && !context.authTest) return new z.errors.HaltedError(withField(error));
  return new z.errors.Error(withField(error), error.code, status);
}

/** True for the core's NOT_FOUND (a 404, or 410): searches turn it into "nothing found". */
export function isNotFound(error: unknown): boolean {
  return error instanceof CertificateServiceError && error.code === 'NOT_FOUND';
}
