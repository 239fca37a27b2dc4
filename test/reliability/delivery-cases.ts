// ONE table of webhook deliveries, genuine and hostile, used by R1 for all three layers:
// the core (checkDelivery), the n8n trigger's webhook() and the Zapier trigger's perform.
// Each case builds a delivery at "now" and says whether a receiver holding
// `receiverSecret` must accept it, and (for the core) which reasons are right for a refusal.
import { createHmac, randomBytes } from 'node:crypto';
import { signPayload, type EventType, type VerificationFailure, type WebhookEvent } from '@certificate-service/sdk/core';
import { computeSignature } from '../../shared/sdk/src/webhooks/sign';

export const SECRET = 'wh_sec_reliability_current_7Qm2';
export const OLD_SECRET = 'wh_sec_reliability_previous_Zk9d';
export const OTHER_SECRET = 'wh_sec_reliability_attacker_Px4w';

export interface Delivery {
  /** Raw body exactly as sent. */
  body: string;
  /** Header names as the service sends them. */
  headers: Record<string, string>;
  /** The secret the receiving connector holds for this subscription. */
  receiverSecret: string;
  event: WebhookEvent;
}

export interface DeliveryCase {
  name: string;
  accept: boolean;
  /** For refusals: the reasons the core may give (the first is the expected one for a string body). */
  reasons?: VerificationFailure[];
  make(nowSeconds: number): Delivery;
}

let counter = 0;
/** A unique delivery id per built delivery, so deduplication never hides a case. */
const deliveryId = () => `whd_rel_${process.pid}_${++counter}_${randomBytes(3).toString('hex')}`;

/** Each event is of a certificate of its own: a receiver claims a certificate event's occurrence, not its delivery id. */
export function eventOf(type: EventType = 'certificate.issued', id = `whe_rel_${++counter}`): WebhookEvent {
  const rec = `rec_rel_${process.pid}_${++counter}`;
  const extras =
    type === 'certificate.failed'
      ? { error: 'Mailbox unavailable (simulated bounce)' }
      : type === 'certificate.viewed'
        ? { viewer: { viewedAt: '2026-01-05T10:00:00.000Z', userAgent: 'Mozilla/5.0', referer: '', ip: '203.0.113.7' } }
        : {};
  return {
    id,
    type,
    createdAt: '2026-01-05T10:00:00.000Z',
    data: {
      id: rec,
      batchId: 'batch_rel',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      certificateId: 'CERT-2026-000001-0001',
      shareToken: 'tok_rel_0001',
      certUrl: 'https://certs.example.com/v/tok_rel_0001',
      issueDate: '2026-01-05T10:00:00.000Z',
      expiryDate: null,
      data: { course: 'Reliability 101' },
      emailStatus: type === 'certificate.sent' ? 'sent' : type === 'certificate.failed' ? 'failed' : 'not_sent',
      emailSentAt: type === 'certificate.sent' ? '2026-01-05T10:00:01.000Z' : null,
      createdAt: '2026-01-05T10:00:00.000Z',
      ...extras,
    },
  } as WebhookEvent;
}

/** A delivery as the service sends it, signed with `secrets` at time `t`. */
export function signed(event: WebhookEvent, secrets: string | string[], t: number, receiverSecret = SECRET): Delivery {
  const body = JSON.stringify(event);
  return {
    body,
    event,
    receiverSecret,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'Service-Webhook/1',
      'X-Service-Event': event.type,
      'X-Service-Delivery': deliveryId(),
      ...signPayload(secrets, body, t),
    },
  };
}

const hex64 = () => randomBytes(32).toString('hex');
const withHeader = (d: Delivery, name: string, value: string | undefined): Delivery => {
  const headers = { ...d.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...d, headers };
};

export const DELIVERY_CASES: DeliveryCase[] = [
  // --- genuine: accepted by every layer ---------------------------------------------
  { name: 'genuine certificate.issued', accept: true, make: (now) => signed(eventOf('certificate.issued'), SECRET, now) },
  { name: 'genuine certificate.sent', accept: true, make: (now) => signed(eventOf('certificate.sent'), SECRET, now) },
  { name: 'genuine certificate.failed', accept: true, make: (now) => signed(eventOf('certificate.failed'), SECRET, now) },
  { name: 'genuine certificate.viewed', accept: true, make: (now) => signed(eventOf('certificate.viewed'), SECRET, now) },
  { name: 'genuine, signed 250 s ago (inside the 300 s window)', accept: true, make: (now) => signed(eventOf(), SECRET, now - 250) },
  { name: 'genuine, clock 250 s ahead (inside the window)', accept: true, make: (now) => signed(eventOf(), SECRET, now + 250) },
  { name: 'genuine, with an unknown v0 scheme next to v1', accept: true, make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return withHeader(d, 'X-Service-Signature', `${d.headers['X-Service-Signature']},v0=${hex64()}`);
  } },
  { name: 'rotated: v1=<new>,v1=<old>, receiver holds the old secret', accept: true, make: (now) => signed(eventOf(), [SECRET, OLD_SECRET], now, OLD_SECRET) },
  { name: 'rotated: v1=<new>,v1=<old>, receiver holds the new secret', accept: true, make: (now) => signed(eventOf(), [SECRET, OLD_SECRET], now, SECRET) },
  { name: 'rotated: v1=<old>,v1=<new>, receiver holds the new secret', accept: true, make: (now) => signed(eventOf(), [OLD_SECRET, SECRET], now, SECRET) },

  // --- hostile or broken: refused by every layer -------------------------------------
  { name: 'forged signature (random v1)', accept: false, reasons: ['NO_MATCHING_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return withHeader(d, 'X-Service-Signature', `t=${now},v1=${hex64()}`);
  } },
  { name: 'forged: v1 computed over the body without the timestamp', accept: false, reasons: ['NO_MATCHING_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return withHeader(d, 'X-Service-Signature', `t=${now},v1=${createHmac('sha256', SECRET).update(d.body).digest('hex')}`);
  } },
  { name: 'tampered body (name changed after signing)', accept: false, reasons: ['NO_MATCHING_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return { ...d, body: d.body.replace('Ada Lovelace', 'Mallory Evil') };
  } },
  { name: 'tampered body (re-serialised JSON, same data)', accept: false, reasons: ['NO_MATCHING_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return { ...d, body: JSON.stringify(JSON.parse(d.body), null, 2) };
  } },
  { name: 'stale: signed 310 s ago', accept: false, reasons: ['TIMESTAMP_TOO_OLD'], make: (now) => signed(eventOf(), SECRET, now - 310) },
  { name: 'stale: a day-old delivery replayed', accept: false, reasons: ['TIMESTAMP_TOO_OLD'], make: (now) => signed(eventOf(), SECRET, now - 86_400) },
  { name: 'future: 310 s ahead', accept: false, reasons: ['TIMESTAMP_TOO_NEW'], make: (now) => signed(eventOf(), SECRET, now + 310) },
  { name: 'missing X-Service-Signature', accept: false, reasons: ['MISSING_SIGNATURE'], make: (now) => withHeader(signed(eventOf(), SECRET, now), 'X-Service-Signature', undefined) },
  { name: 'empty X-Service-Signature', accept: false, reasons: ['MISSING_SIGNATURE', 'MALFORMED_SIGNATURE'], make: (now) => withHeader(signed(eventOf(), SECRET, now), 'X-Service-Signature', '') },
  { name: 'malformed header: not key=value', accept: false, reasons: ['MALFORMED_SIGNATURE'], make: (now) => withHeader(signed(eventOf(), SECRET, now), 'X-Service-Signature', 'sha256 deadbeef') },
  { name: 'malformed header: no t', accept: false, reasons: ['MALFORMED_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return withHeader(d, 'X-Service-Signature', `v1=${computeSignature(SECRET, d.body, now)}`);
  } },
  { name: 'malformed header: t not a number', accept: false, reasons: ['MALFORMED_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return withHeader(d, 'X-Service-Signature', `t=now,v1=${computeSignature(SECRET, d.body, now)}`);
  } },
  { name: 'malformed header: v1 not 64 hex digits', accept: false, reasons: ['MALFORMED_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return withHeader(d, 'X-Service-Signature', `t=${now},v1=${computeSignature(SECRET, d.body, now).slice(0, 63)}`);
  } },
  { name: 'malformed header: only a v0 scheme', accept: false, reasons: ['MALFORMED_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return withHeader(d, 'X-Service-Signature', `t=${now},v0=${computeSignature(SECRET, d.body, now)}`);
  } },
  { name: 't ≠ X-Service-Timestamp (signature valid for t)', accept: false, reasons: ['TIMESTAMP_MISMATCH'], make: (now) => withHeader(signed(eventOf(), SECRET, now), 'X-Service-Timestamp', String(now - 1)) },
  { name: 'X-Service-Timestamp moved into the window, t stale', accept: false, reasons: ['TIMESTAMP_MISMATCH'], make: (now) => withHeader(signed(eventOf(), SECRET, now - 400), 'X-Service-Timestamp', String(now)) },
  { name: 'wrong secret (another subscription’s)', accept: false, reasons: ['NO_MATCHING_SIGNATURE'], make: (now) => signed(eventOf(), OTHER_SECRET, now) },
  { name: 'rotated away: only the old secret signs, receiver holds the new one', accept: false, reasons: ['NO_MATCHING_SIGNATURE'], make: (now) => signed(eventOf(), OLD_SECRET, now, SECRET) },
  { name: 'empty body, signed', accept: false, reasons: ['MISSING_BODY', 'INVALID_PAYLOAD', 'NO_MATCHING_SIGNATURE'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    return { ...d, body: '', headers: { ...d.headers, ...signPayload(SECRET, '', now) } };
  } },
  { name: 'signed body that is not an event envelope', accept: false, reasons: ['INVALID_PAYLOAD'], make: (now) => {
    const d = signed(eventOf(), SECRET, now);
    const body = JSON.stringify({ hello: 'world' });
    return { ...d, body, headers: { ...d.headers, ...signPayload(SECRET, body, now) } };
  } },
];

/** `X-Service-Signature` → `Http-X-Service-Signature`: how Zapier hands hook headers to perform. */
export function zapierHeaders(headers: Record<string, string>): Record<string, string> {
  const name = (n: string) => `Http-${n.split('-').map((p) => p.charAt(0).toUpperCase() + p.slice(1).toLowerCase()).join('-')}`;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [name(k), v]));
}

/** n8n lower-cases incoming header names (the fake context does too). */
export const n8nHeaders = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

/** The Zapier trigger key for an event type. */
export const zapierTriggerKey = (type: string) => type.replace('.', '_');

export const nowSeconds = () => Math.floor(Date.now() / 1000);
