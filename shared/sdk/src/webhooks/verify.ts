import { timingSafeEqual } from 'crypto';
import { EVENT_TYPES, type WebhookEvent } from '../types';
import { getHeader, type HeaderBag } from '../headers';
import { computeSignature } from './sign';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerificationFailure =
  | 'MISSING_BODY'
  | 'NOT_RAW_BODY'
  | 'MISSING_SIGNATURE'
  | 'MALFORMED_SIGNATURE'
  | 'TIMESTAMP_MISMATCH'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_TOO_NEW'
  | 'NO_MATCHING_SIGNATURE'
  | 'NO_SECRET'
  | 'INVALID_PAYLOAD'
  | 'NOT_CERTIFICATE_EVENT'
  | 'INVALID_OPTIONS';

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** Current time, as a Date or epoch milliseconds; injectable for tests. */
  now?: Date | number;
}

export type VerificationResult =
  | { ok: true; event: WebhookEvent; timestamp: number }
  | { ok: false; reason: VerificationFailure; message: string };

const MESSAGES: Record<VerificationFailure, string> = {
  MISSING_BODY: 'The delivery has no body.',
  NOT_RAW_BODY:
    'The body was already parsed. Pass the raw request body (string or Buffer) exactly as received; re-serialised JSON does not match the signature.',
  MISSING_SIGNATURE: 'The X-Service-Signature header is missing. Is this request from the Certificate Service?',
  MALFORMED_SIGNATURE: 'The X-Service-Signature header is not of the form t=<unix seconds>,v1=<hex>.',
  TIMESTAMP_MISMATCH: 'X-Service-Timestamp does not equal t in X-Service-Signature.',
  TIMESTAMP_TOO_OLD: 'The delivery timestamp is too old (outside the replay window). Check the server clock.',
  TIMESTAMP_TOO_NEW: 'The delivery timestamp is in the future (outside the replay window). Check the server clock.',
  NO_MATCHING_SIGNATURE:
    'No signature matches. Check the signing secret, and that the raw, unparsed body is used.',
  NO_SECRET: 'No signing secret is stored for this subscription. Re-create the subscription.',
  INVALID_PAYLOAD: 'The signed body is not a valid delivery envelope.',
  NOT_CERTIFICATE_EVENT:
    'The delivery is genuine (signed), but it is not a certificate event: its data is no recipient, or its type is not one of the four. The service\'s test delivery may look like this. Answer it 2xx (anything else is retried 7 times) and do not handle it as a certificate.',
  INVALID_OPTIONS: 'The verification options are not valid.',
};

type Failure = { ok: false; reason: VerificationFailure; message: string };

/** What each failure means, for the hosts' answers and logs. */
export const failureMessage = (reason: VerificationFailure): string => MESSAGES[reason];

function fail(reason: VerificationFailure, message = MESSAGES[reason]): Failure {
  return { ok: false, reason, message };
}

/**
 * The replay window and the clock, checked: a NaN or a text here would make every age
 * comparison false and so accept a delivery of any age. That is refused, never ignored.
 */
function readWindow(options: VerifyOptions | null | undefined): { toleranceSeconds: number; nowMs: number } | Failure {
  const { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now } = options ?? {};
  if (typeof toleranceSeconds !== 'number' || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    return fail('INVALID_OPTIONS', `toleranceSeconds must be a finite number of seconds, 0 or more (got ${describe(toleranceSeconds)}).`);
  }
  const nowMs = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : typeof now === 'number' ? now : NaN;
  if (!Number.isFinite(nowMs)) {
    return fail('INVALID_OPTIONS', `now must be a valid Date or epoch milliseconds (got ${now instanceof Date ? 'an Invalid Date' : describe(now)}).`);
  }
  return { toleranceSeconds, nowMs };
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the text "${value.slice(0, 40)}"`;
  if (typeof value === 'number') return String(value);
  return typeof value;
}

/** Parses `t=<n>,v1=<hex>[,v1=<hex>...]`; other schemes are ignored, as receivers should. */
export function parseSignatureHeader(header: string): { t: number; v1: string[] } | null {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) v1.push(value.toLowerCase());
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

/**
 * What every check reads: the body exactly as received (string or Buffer), the request's
 * headers, the signing secret(s) (several during a rotation) and the replay window.
 */
type DeliveryInput = [
  rawBody: unknown,
  headers: HeaderBag | null | undefined,
  secrets: string | Array<string | undefined | null>,
  options?: VerifyOptions | null,
];

export type SignatureResult = { ok: true; timestamp: number } | { ok: false; reason: VerificationFailure; message: string };

/**
 * Checks a delivery's signature and never throws: a pipeline of small steps
 * (raw body → header parse → timestamp agreement → window → any-signature match).
 * Any of several `v1` values may match any of several secrets, for secret rotation.
 */
export function checkSignature(...[rawBody, headers, secrets, options]: DeliveryInput): SignatureResult {
  try {
    return signatureSteps(rawBody, headers, secrets, options);
  } catch {
    // Every step guards its input; this is the promise that a hostile value (a Proxy, a
    // getter that throws) still ends as a refusal, never as an exception in the receiver.
    return fail('MALFORMED_SIGNATURE');
  }
}

function signatureSteps(...[rawBody, headers, secrets, options]: DeliveryInput): SignatureResult {
  const window = readWindow(options);
  if ('ok' in window) return window;
  if (rawBody === undefined || rawBody === null || rawBody === '') return fail('MISSING_BODY');
  if (typeof rawBody !== 'string' && !Buffer.isBuffer(rawBody)) return fail('NOT_RAW_BODY');
  const keys = (Array.isArray(secrets) ? secrets : [secrets]).filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  );
  if (keys.length === 0) return fail('NO_SECRET');

  const header = getHeader(headers, 'X-Service-Signature');
  if (!header) return fail('MISSING_SIGNATURE');
  const parsed = parseSignatureHeader(header);
  if (!parsed) return fail('MALFORMED_SIGNATURE');

  const tsHeader = getHeader(headers, 'X-Service-Timestamp');
  if (tsHeader !== undefined && tsHeader.trim() !== String(parsed.t)) return fail('TIMESTAMP_MISMATCH');

  const tolerance = window.toleranceSeconds;
  const age = Math.floor(window.nowMs / 1000) - parsed.t;
  if (age > tolerance) return fail('TIMESTAMP_TOO_OLD');
  if (age < -tolerance) return fail('TIMESTAMP_TOO_NEW');

  // Every candidate is compared in constant time; no early exit on a secret.
  // Hex strings of equal length (parseSignatureHeader checks 64 chars), compared as bytes.
  const candidates = parsed.v1.map((hex) => Buffer.from(hex, 'latin1'));
  let matched = false;
  for (const secret of keys) {
    const expected = Buffer.from(computeSignature(secret, rawBody, parsed.t), 'latin1');
    for (const candidate of candidates) if (timingSafeEqual(expected, candidate)) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.t } : fail('NO_MATCHING_SIGNATURE');
}

/**
 * {@link checkSignature}, then the signed bytes parsed into a certificate event. Never throws.
 * A genuine envelope that is not a certificate event (see {@link readEnvelope}) is refused with
 * `NOT_CERTIFICATE_EVENT`: the caller should still answer it 2xx.
 */
export function checkDelivery(...input: DeliveryInput): VerificationResult {
  const signature = checkSignature(...input);
  if (!signature.ok) return signature;
  const read = readEnvelope(input[0] as string | Buffer);
  if (!read) return fail('INVALID_PAYLOAD');
  if (read.kind === 'other') return fail('NOT_CERTIFICATE_EVENT', `${MESSAGES.NOT_CERTIFICATE_EVENT} (${read.why})`);
  return { ok: true, event: read.event, timestamp: signature.timestamp };
}

/** A signed envelope (`id` and `type` strings) that is not a certificate event. */
export interface OtherEnvelope {
  id: string;
  type: string;
  createdAt?: unknown;
  data?: unknown;
}

export type EnvelopeRead = { kind: 'event'; event: WebhookEvent } | { kind: 'other'; envelope: OtherEnvelope; why: string };

/**
 * Reads a signed body: a certificate event (one of the four types, `data` a recipient: an object
 * with an `id` string), another envelope (the spec does not show the test delivery's body, so
 * it may carry a sample that is no recipient, or a type of its own), or null when the body is not
 * an envelope at all (no `id` and `type` strings).
 */
export function readEnvelope(rawBody: string | Buffer): EnvelopeRead | null {
  let value: unknown;
  try {
    value = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const e = value as Record<string, unknown>;
  if (typeof e.id !== 'string' || typeof e.type !== 'string') return null;
  const why = notCertificate(e.type, e.data);
  if (why) return { kind: 'other', envelope: { id: e.id, type: e.type, createdAt: e.createdAt, data: e.data }, why };
  return { kind: 'event', event: value as WebhookEvent };
}

/** Why an envelope is not a certificate event, or undefined when it is one. */
function notCertificate(type: string, data: unknown): string | undefined {
  if (!(EVENT_TYPES as readonly string[]).includes(type)) return `type "${type.slice(0, 60)}" is not a certificate event`;
  const shape = data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data;
  if (shape !== 'object') return `data is ${shape}, not a recipient`;
  const id = (data as Record<string, unknown>).id;
  if (typeof id !== 'string' || id.trim() === '') return 'data has no recipient id';
  return undefined;
}

export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailure;
  constructor(reason: VerificationFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** Throwing form of {@link checkDelivery}: returns the verified event. */
export function verifyDelivery(...input: DeliveryInput): WebhookEvent {
  const result = checkDelivery(...input);
  if (!result.ok) throw new WebhookVerificationError(result.reason, result.message);
  return result.event;
}
