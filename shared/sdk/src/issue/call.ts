import { ENDPOINTS } from '../client/endpoints';
import { one, unexpected, type Decoder, type ResponseContext } from '../decode';
import { CertificateServiceError } from '../errors';
import type { CallSpec } from '../request';
import type { Recipient } from '../types';
import type { IssueOutcome } from './outcome';
import type { ValidRecipient } from './plan';

// One issue call (spec section 4): its request, and what its answer (or its failure) means for
// each recipient sent: issued, failed (the service refused it) or unknown (sent, and the answer
// does not say). The caller makes the call. It is never repeated after an unknown outcome: the
// API has no idempotency key, so a repeat could issue, and bill, twice.

export type SentOutcome = Extract<IssueOutcome, { kind: 'issued' | 'failed' | 'unknown' }>;

// The same test as a bulk entry (isRecipient): an id and a certificate ID.
const issued = one<Recipient>('the issued certificate', ['recipient', 'certificate'], ['id', 'certificateId']);

/**
 * The request for one call and how to read its answer, one outcome per recipient: a lone
 * recipient goes to the single-issue endpoint, whose answer's shape is documented, more to bulk
 * (at most 100), unless `endpoint` says which. The bulk request body is not shown in the spec;
 * ours is the documented default `{recipients: [...], send?}`.
 */
export function issueRequest(
  call: { batchId: string; send: boolean | undefined; recipients: ValidRecipient[] },
  endpoint: 'one' | 'bulk' = call.recipients.length === 1 ? 'one' : 'bulk',
): { spec: CallSpec; decode: Decoder<SentOutcome[]> } {
  const emails = call.recipients.map((r) => r.email);
  const send = call.send !== undefined ? { send: !!call.send } : {};
  const params = { batchId: call.batchId };
  if (endpoint === 'one') {
    return {
      spec: { endpoint: ENDPOINTS.issueCertificate, params, body: { ...call.recipients[0], ...send }, recipients: emails },
      decode: (body, context) => [{ kind: 'issued', ok: true, recipient: issued(body, context) }],
    };
  }
  return { spec: { endpoint: ENDPOINTS.issueBulk, params, body: { recipients: call.recipients, ...send }, recipients: emails }, decode: bulkOutcomes(emails) };
}

function isRecipient(v: unknown): v is Recipient {
  return !!v && typeof v === 'object' && typeof (v as Recipient).id === 'string' && typeof (v as Recipient).certificateId === 'string';
}

function entryError(raw: unknown, email: string): CertificateServiceError {
  const e = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const code = typeof e.error === 'string' ? e.error : typeof e.code === 'string' ? e.code : 'UNKNOWN';
  const message = typeof e.message === 'string' ? e.message : typeof raw === 'string' ? raw : 'The service rejected this recipient.';
  const detail = e.detail && typeof e.detail === 'object' ? (e.detail as Record<string, unknown>) : {};
  // The service answered for this item (inside a 2xx bulk response), so it is a response error.
  return new CertificateServiceError({ code, phase: 'response', message: `${email}: ${message}`, detail });
}

// The bulk response body is "not shown" in the spec, so the plausible shapes are read:
// a bare array or {data|recipients|results|items|created: [...]}, entries being a recipient
// or {index?, recipient} / {index?, error}, plus an optional {errors: [{index, ...}]} list.
// Any other body is UNEXPECTED_RESPONSE for the whole call (its items' outcome is unknown).
const ENTRY_KEYS = ['data', 'recipients', 'results', 'items', 'created'];

/**
 * Maps a bulk response back onto the recipients sent, by `index` when the service gives one and
 * by position otherwise. A recipient the answer does not account for, or whose entry cannot be
 * read, ends `unknown` rather than silently disappearing.
 */
export function bulkOutcomes(emails: string[]): Decoder<SentOutcome[]> {
  return (body, context) => {
    const obj = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    const key = obj && ENTRY_KEYS.find((k) => Array.isArray(obj[k]));
    if (!Array.isArray(body) && !key && !Array.isArray(obj?.errors)) throw unexpected(context, body, 'a bulk result (a list, or an object with data, recipients, results, items, created or errors)');
    const entries: unknown[] = Array.isArray(body) ? body : key ? (obj![key] as unknown[]) : [];
    const out: Array<SentOutcome | undefined> = new Array(emails.length).fill(undefined);
    const unreadable = new Set<number>();
    entries.forEach((entry, position) => {
      const e = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
      const i = typeof e.index === 'number' ? e.index : position;
      if (!Number.isInteger(i) || i < 0 || i >= emails.length) return;
      if (isRecipient(entry)) out[i] = { kind: 'issued', ok: true, recipient: entry };
      else if (isRecipient(e.recipient)) out[i] = { kind: 'issued', ok: true, recipient: e.recipient };
      else if (e.error !== undefined) out[i] = { kind: 'failed', ok: false, error: entryError(typeof e.error === 'object' ? e.error : e, emails[i]) };
      else unreadable.add(i);
    });
    if (Array.isArray(obj?.errors)) {
      for (const raw of obj!.errors as unknown[]) {
        const entry = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
        const i = typeof entry.index === 'number' ? entry.index : -1;
        if (Number.isInteger(i) && i >= 0 && i < emails.length && !out[i]) out[i] = { kind: 'failed', ok: false, error: entryError(entry, emails[i]) };
      }
    }
    return out.map((o, i) => o ?? { kind: 'unknown', ok: false, error: unaccounted(emails[i], context, unreadable.has(i)) });
  };
}

function unaccounted(email: string, context: ResponseContext, unreadable: boolean): CertificateServiceError {
  if (!unreadable) {
    // Sent, and the answer says nothing of it: no reliable answer for this item.
    return new CertificateServiceError({ code: 'UNKNOWN', phase: 'request', outcomeUnknown: true, message: `Outcome unknown for ${email}: the bulk response did not mention this recipient.` });
  }
  return new CertificateServiceError({
    code: 'UNEXPECTED_RESPONSE',
    phase: 'response',
    status: context.status,
    outcomeUnknown: true,
    detail: { endpoint: context.endpoint },
    message: `Outcome unknown for ${email}: the bulk response's entry for this recipient is neither a certificate nor an error.`,
  });
}

/**
 * When a whole call fails, every recipient in it gets the error (`unknown` when it may have been
 * applied). If the service named the offending item (`detail.index` in its error), that item gets
 * the error as its own and the others are told they were not issued because of it.
 */
export function failCall(error: CertificateServiceError, emails: string[]): SentOutcome[] {
  const culprit = typeof error.detail.index === 'number' && Number.isInteger(error.detail.index) ? error.detail.index : -1;
  return emails.map((email, i): SentOutcome => {
    // A call for one recipient failed for that recipient: its error is the item's as it is (an
    // "outcome unknown" message already names the recipient). In a bulk call, each item says whose it is.
    const own = emails.length === 1 ? error : new CertificateServiceError({ ...error.toJSON(), code: error.code, message: `${email}: ${error.message}`, cause: error });
    if (error.outcomeUnknown) return { kind: 'unknown', ok: false, error: own };
    if (culprit < 0 || culprit >= emails.length || i === culprit) return { kind: 'failed', ok: false, error: own };
    const message = `${email}: not issued, because the bulk call was rejected for item ${culprit} (${error.message})`;
    return { kind: 'failed', ok: false, because: culprit, error: new CertificateServiceError({ code: error.code, phase: error.phase, status: error.status, detail: error.detail, message, cause: error }) };
  });
}
