import { CertificateServiceError } from './errors';
import { endpointName, ENDPOINTS } from './client/endpoints';
import type { EventType, Recipient } from './types';

// The one vocabulary of polling, recovery and receiving. An *occurrence* is one thing that
// happened to a certificate: it was issued, its email was sent (each send), or its email failed.
// Its *key* is the one claim a receiver makes, whether the occurrence reached it as a delivery,
// a poll or a recovery, so the same occurrence runs once whichever way it came.

export type PollEvent = 'issued' | 'sent' | 'failed';
export const POLL_EVENTS: readonly PollEvent[] = ['issued', 'sent', 'failed'];
/** The webhook event type each occurrence kind stands for. */
export const POLL_EVENT_TYPES: Record<PollEvent, EventType> = { issued: 'certificate.issued', sent: 'certificate.sent', failed: 'certificate.failed' };

/** An occurrence as a list shows it. */
export interface Occurrence {
  key: string;
  /** When it happened (ms): `createdAt` (issued), `emailSentAt` (sent); failed: the list does not say. */
  at?: number;
  /** Its certificate's `createdAt` (ms), by which the list sorts it. */
  created: number;
  recipient: Recipient;
}

const ms = (time: unknown): number => (typeof time === 'string' ? Date.parse(time) : NaN);

/**
 * The key of an occurrence (the receivers' claim, the poll's emitted `id`); undefined when the
 * recipient cannot say (a send without a readable `emailSentAt`):
 * - issued: `<certificate id>`, the pair (id, issued) written short: the other kinds carry a
 *   suffix and delivery ids start `whd_`, so no two kinds share a key;
 * - sent: `<id>:sent:<emailSentAt in epoch ms>`: each send is one, to the second or ms, in any zone;
 * - failed: `<id>:failed:<emailSentAt in epoch ms>`, or `<id>:failed` if never sent. The service
 *   gives no failure time (the list keeps `emailSentAt` at the last successful send), so a failure
 *   counts once per successful send: a resend that fails again with none between is run once.
 */
export function occurrenceKey(event: PollEvent, recipient: Pick<Recipient, 'id' | 'emailSentAt'>): string | undefined {
  if (event === 'issued') return recipient.id;
  const sentAt = recipient.emailSentAt === null || recipient.emailSentAt === undefined ? undefined : ms(recipient.emailSentAt);
  if (Number.isNaN(sentAt) || (event === 'sent' && sentAt === undefined)) return undefined;
  return sentAt === undefined ? `${recipient.id}:failed` : `${recipient.id}:${event}:${sentAt}`;
}

/** The one `emailStatus` filter of an event (issued: none). */
export const pollFilter = (event: PollEvent): string | undefined => (event === 'issued' ? undefined : event);

/** The occurrence kind of a webhook event type; undefined for `certificate.viewed` (claimed by delivery id). */
export function occurrenceEvent(type: string): PollEvent | undefined {
  return POLL_EVENTS.find((e) => POLL_EVENT_TYPES[e] === type);
}

export const LIST_ENDPOINT = endpointName(ENDPOINTS.listRecipients);

export function unreadableList(message: string): CertificateServiceError {
  return new CertificateServiceError({ code: 'UNEXPECTED_RESPONSE', phase: 'response', status: 200, detail: { endpoint: LIST_ENDPOINT }, message: `${LIST_ENDPOINT} ${message}` });
}

/** A listed certificate as an occurrence; a time that cannot be read makes the list unreadable (never "not new"). */
export function occurrence(event: PollEvent, recipient: Recipient, index: number): Occurrence {
  const created = ms(recipient.createdAt);
  if (Number.isNaN(created)) {
    throw unreadableList(`listed a certificate (item ${index}) without a readable "createdAt", so new certificates cannot be told from old ones.`);
  }
  const key = occurrenceKey(event, recipient);
  if (key === undefined) throw unreadableList(`listed a ${event} certificate (item ${index}) with an "emailSentAt" that is not a time.`);
  const at = event === 'issued' ? created : event === 'sent' ? ms(recipient.emailSentAt) : undefined;
  return { key, ...(at === undefined ? {} : { at }), created, recipient };
}
