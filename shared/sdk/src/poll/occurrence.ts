import { CertificateServiceError } from '../errors';
import { endpointName, ENDPOINTS } from '../client/endpoints';
import type { EventType, Recipient } from '../types';

// The one vocabulary of polling, recovery and receiving. An *occurrence* is one thing that
// happened to a certificate: it was issued, its email was sent (each send), or its email failed.
// Its *key* is the one claim a receiver makes, whether the occurrence reached it as a delivery,
// a poll or a recovery, so the same occurrence runs once whichever way it came.

export type PollEvent = 'issued' | 'sent' | 'failed';
export const POLL_EVENTS: readonly PollEvent[] = ['issued', 'sent', 'failed'];
/** The webhook event type each occurrence kind stands for. */
export const POLL_EVENT_TYPES: Record<PollEvent, EventType> = { issued: 'certificate.issued', sent: 'certificate.sent', failed: 'certificate.failed' };

/**
 * An occurrence as a list shows it.
 * - `key`: occurrenceKey.
 * - `at`: when it happened, as the service stamped it (ms): `createdAt` (issued), `emailSentAt`
 *   (sent); undefined when the list does not say (failed, or a sent item without a time).
 * - `created`: its `createdAt` (ms), where the list sorts it.
 */
export interface Occurrence {
  key: string;
  at?: number;
  created: number;
  recipient: Recipient;
}

const ms = (time: unknown): number => (typeof time === 'string' ? Date.parse(time) : NaN);

/**
 * The key of an occurrence (the receivers' claim, the poll's emitted `id`):
 * - issued: `<certificate id>` alone, the pair (certificate id, issued) written short: the other
 *   kinds carry a suffix and delivery ids start `whd_`, so no two kinds share a key;
 * - sent: `<certificate id>:sent:<emailSentAt in epoch ms>`: each send is its own occurrence,
 *   and the same send written to the second or to the ms, or in another zone, is one;
 * - failed: `<certificate id>:failed:<emailSentAt in epoch ms>`, or `<certificate id>:failed`
 *   for a certificate never sent. The service gives no failure time (the list keeps
 *   `emailSentAt` at the last successful send), so a failure counts once per successful send:
 *   a resend that fails again with no successful send between is the same occurrence, run once.
 * Undefined when the recipient cannot say (a send without a readable `emailSentAt`).
 */
export function occurrenceKey(event: PollEvent, recipient: Pick<Recipient, 'id' | 'emailSentAt'>): string | undefined {
  if (event === 'issued') return recipient.id;
  const sentAt = recipient.emailSentAt === null || recipient.emailSentAt === undefined ? undefined : ms(recipient.emailSentAt);
  if (event === 'sent') return sentAt === undefined || Number.isNaN(sentAt) ? undefined : `${recipient.id}:sent:${sentAt}`;
  if (sentAt !== undefined && Number.isNaN(sentAt)) return undefined;
  return sentAt === undefined ? `${recipient.id}:failed` : `${recipient.id}:failed:${sentAt}`;
}

/** The one `emailStatus` filter of an event (issued: none). */
export const pollFilter = (event: PollEvent): string | undefined => (event === 'issued' ? undefined : event);

/** The occurrence kind of a webhook event type; undefined for `certificate.viewed` (claimed by delivery id). */
export function occurrenceEvent(type: string): PollEvent | undefined {
  return POLL_EVENTS.find((e) => POLL_EVENT_TYPES[e] === type);
}

const ENDPOINT = endpointName(ENDPOINTS.listRecipients);

export function unreadableList(message: string): CertificateServiceError {
  return new CertificateServiceError({ code: 'UNEXPECTED_RESPONSE', phase: 'response', status: 200, detail: { endpoint: ENDPOINT }, message: `${ENDPOINT} ${message}` });
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
