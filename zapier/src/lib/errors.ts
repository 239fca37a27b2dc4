import type { ZObject } from 'zapier-platform-core';
import { CertificateServiceError, hostHint, type HostWords } from '@certificate-service/sdk/core';

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
  /** An issue step whose outcome is unknown, and what replaying it would do (see ReplayWords). */
  replay?: ReplayWords;
}

/**
 * What replaying an issue step whose outcome is unknown does, in Zapier's words for the user.
 * `safe`: it cannot issue twice, so the error is a plain one, which autoreplay retries. Not safe:
 * it is halted, since autoreplay replays only errored steps, never halted ones ("Autoreplay will
 * only replay actions that fail due to a Stopped/Errored status", help.zapier.com, "What is replay?").
 */
export interface ReplayWords {
  safe: boolean;
  words: string;
}

/** Codes that describe the input or the state of a resource, not a broken integration. */
// UNEXPECTED_RESPONSE: an answer the core could not read, so nothing was done with it (an issue call
// whose answer was unreadable is outcomeUnknown, and the step's replay words decide: see RULES).
const HALT_CODES = new Set(['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'BATCH_ARCHIVED', 'UNEXPECTED_RESPONSE']);

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
  recipientId: 'Certificate',
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

/** Zapier's words after the core's hint: the connection, the Zaps that hold a subscription. */
export const ZAPIER_WORDS: HostWords = {
  auth: 'Reconnect your Certificate Service account in Zapier with a working key.',
  // Each issue step says what its replay does (context.replay); this is for any other.
  'issue-unknown': 'Look the emails up in the batch (Find Certificate by Email) before replaying this step.',
  'subscription-limit':
    'Each Zap that is on with an instant Certificate Service trigger holds one: turn off the Zaps you no longer use, or switch them to the polling triggers New Certificate, Certificate Email Sent and Certificate Email Failed, which hold none. (n8n workflows and your own apps on the same workspace may hold others.)',
  'unexpected-response': 'Check the API Base URL of your Certificate Service connection.',
  'unknown-variable': 'Setting "Send Variables the Design Does Not List" to True sends such names as given.',
  unreachable:
    'Check the API Base URL of your Certificate Service connection. A Zap runs on Zapier\'s servers, which reach it over the internet: a localhost or private address works only where the app runs on your machine (zapier-platform invoke).',
};

/**
 * What the user reads: the core's message, the Zapier field to fix when one is named, the
 * code of an auth failure, and the core's hint with Zapier's words for it.
 */
function userText(error: CertificateServiceError, context: ErrorContext): string {
  let text = error.message;
  if (error.field) text = `${text.replace(/[.\s]*$/, '')}. Check the ${fieldLabel(error.field)} field.`;
  if (error.isAuthError) text = `${text} (${error.code})`;
  const hint = hostHint(error, context.replay ? { ...ZAPIER_WORDS, 'issue-unknown': context.replay.words } : ZAPIER_WORDS);
  return hint ? `${text} ${hint}` : text;
}

type Rule = [when: (error: CertificateServiceError, context: ErrorContext) => boolean, make: (z: ZObject, error: CertificateServiceError, text: string) => Error];

/** The one mapping: the first row whose condition holds makes the Zapier error. */
const RULES: Rule[] = [
  [(e, c) => e.isAuthError && c.authTest === true, (z, e, text) => new z.errors.Error(text, String(e.code), 401)],
  [(e) => e.isAuthError, (z, _e, text) => new z.errors.ExpiredAuthError(text)],
  // An issue call whose outcome is unknown is never repeated by the core. Replaying the step is
  // left to Zapier's autoreplay only when the step says a replay cannot issue twice.
  [(e, c) => e.outcomeUnknown && c.replay?.safe === false, (z, _e, text) => new z.errors.HaltedError(text)],
  [(e) => e.outcomeUnknown, (z, e, text) => new z.errors.Error(text, String(e.code), e.status || undefined)],
  [(e) => e.isRateLimited, (z, e, text) => new z.errors.ThrottledError(text, throttleDelay(e.retryAfterSeconds))],
  [(e, c) => !c.authTest && (e.phase === 'validation' || HALT_CODES.has(e.code)), (z, _e, text) => new z.errors.HaltedError(text)],
  [() => true, (z, e, text) => new z.errors.Error(text, String(e.code), e.status || undefined)],
];

/** Maps any error thrown while running an operation; errors that are not the core's pass through. */
export function toZapierError(z: ZObject, error: unknown, context: ErrorContext = {}): Error {
  if (!(error instanceof CertificateServiceError)) return error instanceof Error ? error : new Error(String(error));
  const [, make] = RULES.find(([when]) => when(error, context))!;
  const mapped = make(z, error, userText(error, context));
  // zapier-platform-core (19.1.0, src/middleware.js enrichErrorMessages) appends a "What
  // happened" log to an error's message unless `doNotContextify` is set: the bundle's input
  // and the first 100 characters of the raw response. Those can hold a key the server echoed
  // or the user pasted into a field, and our message already says what happened. AppError
  // and ThrottledError set the flag themselves; HaltedError and ExpiredAuthError do not.
  (mapped as Error & { doNotContextify?: boolean }).doNotContextify = true;
  return mapped;
}
