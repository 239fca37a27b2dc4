import { createHmac } from 'crypto';
import { checkDelivery, DeliveryDeduper, flattenEvent, signPayload, verifyDelivery, WebhookVerificationError } from '@certificate-service/sdk/core';
import { recipient } from './helpers';

const SECRET = 'wh_sec_test_secret_1';
const NOW = 1_800_000_000; // seconds
const event = { id: 'whe_1', type: 'certificate.failed', createdAt: '2027-01-15T08:00:00.000Z', data: { ...recipient(1), error: 'Mailbox unavailable' } };
const body = JSON.stringify(event);

function headers(t = NOW, secret: string | string[] = SECRET, raw: string | Buffer = body) {
  return { 'X-Service-Event': 'certificate.failed', 'X-Service-Delivery': 'whd_1', ...signPayload(secret, raw, t) };
}
const at = (seconds: number) => ({ now: seconds * 1000 });

test('the signature is HMAC-SHA256 over "<t>.<raw body>", hex, as v1', () => {
  const expected = createHmac('sha256', SECRET).update(`${NOW}.${body}`).digest('hex');
  expect(signPayload(SECRET, body, NOW)).toEqual({ 'X-Service-Signature': `t=${NOW},v1=${expected}`, 'X-Service-Timestamp': String(NOW) });
});

test('a genuine delivery verifies and returns the event', () => {
  expect(verifyDelivery(body, headers(), [SECRET], at(NOW))).toEqual(event);
});

test('a Buffer body verifies the same', () => {
  expect(checkDelivery(Buffer.from(body), headers(), SECRET, at(NOW))).toMatchObject({ ok: true, timestamp: NOW });
});

test('header names are matched case-insensitively, including Zapier\'s Http- prefix', () => {
  const h = headers();
  const zapier = { 'Http-X-Service-Signature': h['X-Service-Signature'], 'Http-X-Service-Timestamp': h['X-Service-Timestamp'] };
  const lower = { 'x-service-signature': h['X-Service-Signature'] };
  expect(checkDelivery(body, zapier, SECRET, at(NOW)).ok).toBe(true);
  expect(checkDelivery(body, lower, SECRET, at(NOW)).ok).toBe(true);
});

test('two v1 values (rotation): either secret verifies', () => {
  const h = headers(NOW, ['wh_sec_new', SECRET]);
  expect(h['X-Service-Signature'].match(/v1=/g)).toHaveLength(2);
  expect(checkDelivery(body, h, SECRET, at(NOW)).ok).toBe(true);
  expect(checkDelivery(body, h, ['wh_sec_new'], at(NOW)).ok).toBe(true);
  expect(checkDelivery(body, headers(NOW, 'wh_sec_new'), ['wh_sec_other', 'wh_sec_new'], at(NOW)).ok).toBe(true);
});

test('the window is 300 s on both sides', () => {
  expect(checkDelivery(body, headers(NOW - 300), SECRET, at(NOW)).ok).toBe(true);
  expect(checkDelivery(body, headers(NOW + 300), SECRET, at(NOW)).ok).toBe(true);
});

const tampered = body.replace('Mailbox', 'Mailb0x');
test.each([
  ['tampered body', () => checkDelivery(tampered, headers(), SECRET, at(NOW)), 'NO_MATCHING_SIGNATURE'],
  ['wrong secret', () => checkDelivery(body, headers(NOW, 'wh_sec_other'), SECRET, at(NOW)), 'NO_MATCHING_SIGNATURE'],
  ['forged signature', () => checkDelivery(body, { 'X-Service-Signature': `t=${NOW},v1=${'a'.repeat(64)}` }, SECRET, at(NOW)), 'NO_MATCHING_SIGNATURE'],
  ['stale (301 s old)', () => checkDelivery(body, headers(NOW - 301), SECRET, at(NOW)), 'TIMESTAMP_TOO_OLD'],
  ['future (301 s ahead)', () => checkDelivery(body, headers(NOW + 301), SECRET, at(NOW)), 'TIMESTAMP_TOO_NEW'],
  ['missing signature header', () => checkDelivery(body, { 'X-Service-Timestamp': String(NOW) }, SECRET, at(NOW)), 'MISSING_SIGNATURE'],
  ['no headers at all', () => checkDelivery(body, undefined, SECRET, at(NOW)), 'MISSING_SIGNATURE'],
  ['malformed header', () => checkDelivery(body, { 'X-Service-Signature': 'sha256=abc' }, SECRET, at(NOW)), 'MALFORMED_SIGNATURE'],
  ['v1 not hex', () => checkDelivery(body, { 'X-Service-Signature': `t=${NOW},v1=zz` }, SECRET, at(NOW)), 'MALFORMED_SIGNATURE'],
  ['t differs from X-Service-Timestamp', () => checkDelivery(body, { ...headers(), 'X-Service-Timestamp': String(NOW - 1) }, SECRET, at(NOW)), 'TIMESTAMP_MISMATCH'],
  ['parsed object instead of raw body', () => checkDelivery(event, headers(), SECRET, at(NOW)), 'NOT_RAW_BODY'],
  ['empty body', () => checkDelivery('', headers(), SECRET, at(NOW)), 'MISSING_BODY'],
  ['no secret stored', () => checkDelivery(body, headers(), [undefined], at(NOW)), 'NO_SECRET'],
  ['signed but not an event', () => checkDelivery('{"hello":1}', headers(NOW, SECRET, '{"hello":1}'), SECRET, at(NOW)), 'INVALID_PAYLOAD'],
])('rejects: %s', (_name, run, reason) => {
  const result = run();
  expect(result).toMatchObject({ ok: false, reason });
});

test('verifyDelivery throws a typed error that hints at the raw body', () => {
  let error: unknown;
  try {
    verifyDelivery(event, headers(), SECRET, at(NOW));
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(WebhookVerificationError);
  expect((error as WebhookVerificationError).reason).toBe('NOT_RAW_BODY');
  expect((error as Error).message).toMatch(/raw request body/);
  expect((error as Error).message).not.toContain(SECRET);
});

test('the deduper remembers a bounded number of delivery ids', () => {
  const d = new DeliveryDeduper(3, ['a']);
  expect(d.seen('a')).toBe(true);
  expect(d.seen('b')).toBe(false);
  expect(d.seen('b')).toBe(true);
  d.seen('c');
  d.seen('d'); // evicts the oldest
  expect(d.toJSON()).toEqual(['b', 'c', 'd']);
  expect(d.has('a')).toBe(false);
});

test('flattenEvent puts recipient fields at the top, with the envelope\'s id/type/createdAt', () => {
  const flat = flattenEvent(event as never);
  expect(flat).toMatchObject({ id: 'whe_1', type: 'certificate.failed', createdAt: event.createdAt, recipientId: 'rec_1', recipientCreatedAt: event.data.createdAt, certificateId: event.data.certificateId, error: 'Mailbox unavailable' });
});
