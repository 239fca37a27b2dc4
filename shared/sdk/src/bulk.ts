import { unexpected, type Decoder, type ResponseContext } from './decode';
import { CertificateServiceError } from './errors';
import type { Recipient } from './types';
import { MAX_BULK } from './validation';

/** `skipped`: not sent, because the recipient already had a certificate in the batch (issueMany's skipExisting). */
export type ItemOutcome = { ok: true; recipient: Recipient; skipped?: boolean } | { ok: false; error: CertificateServiceError };

export function chunk<T>(items: T[], size = MAX_BULK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
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
 * Maps a bulk response back onto the input items, by `index` when the service gives
 * one and by position otherwise. An item the response does not account for, or whose
 * entry cannot be read, ends as "outcome unknown" rather than silently disappearing.
 */
export function bulkOutcomes(emails: string[]): Decoder<ItemOutcome[]> {
  return (body, context) => {
    const obj = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    const key = obj && ENTRY_KEYS.find((k) => Array.isArray(obj[k]));
    if (!Array.isArray(body) && !key && !Array.isArray(obj?.errors)) throw unexpected(context, body, 'a bulk result (a list, or an object with data, recipients, results, items, created or errors)');
    const entries: unknown[] = Array.isArray(body) ? body : key ? (obj![key] as unknown[]) : [];
    const out: Array<ItemOutcome | undefined> = new Array(emails.length).fill(undefined);
    const unreadable: number[] = [];
    entries.forEach((entry, position) => {
      const e = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
      const i = typeof e.index === 'number' ? e.index : position;
      if (!Number.isInteger(i) || i < 0 || i >= emails.length) return;
      if (isRecipient(entry)) out[i] = { ok: true, recipient: entry };
      else if (isRecipient(e.recipient)) out[i] = { ok: true, recipient: e.recipient };
      else if (e.error !== undefined) out[i] = { ok: false, error: entryError(typeof e.error === 'object' ? e.error : e, emails[i]) };
      else unreadable.push(i);
    });
    if (Array.isArray(obj?.errors)) {
      for (const raw of obj!.errors as unknown[]) {
        const entry = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
        const i = typeof entry.index === 'number' ? entry.index : -1;
        if (Number.isInteger(i) && i >= 0 && i < emails.length && !out[i]) out[i] = { ok: false, error: entryError(entry, emails[i]) };
      }
    }
    return out.map((o, i) => o ?? { ok: false, error: unaccounted(emails[i], context, unreadable.includes(i)) });
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
 * When a whole bulk call fails, every item in it gets the error. If the service named
 * the offending item (`detail.index`), that item gets it as its own and the others are
 * told they were not issued because of it.
 */
export function failChunk(error: CertificateServiceError, emails: string[]): ItemOutcome[] {
  const culprit = typeof error.detail.index === 'number' ? error.detail.index : -1;
  return emails.map((email, i) => {
    if (culprit < 0 || i === culprit || error.outcomeUnknown) return { ok: false, error: withEmail(error, email) };
    return {
      ok: false,
      error: new CertificateServiceError({
        code: error.code,
        phase: error.phase,
        status: error.status,
        detail: { ...error.detail, notIssuedBecauseOf: culprit },
        message: `${email}: not issued, because the bulk call was rejected for item ${culprit} (${error.message})`,
      }),
    };
  });
}

function withEmail(error: CertificateServiceError, email: string): CertificateServiceError {
  return new CertificateServiceError({ ...error.toJSON(), code: error.code, message: `${email}: ${error.message}`, cause: error });
}
