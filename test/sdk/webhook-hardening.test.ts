// Verification that cannot be switched off by accident (issue 10, item 5).
import { checkDelivery, checkSignature, DeliveryDeduper, getHeader, signPayload, verifyDelivery, WebhookVerificationError } from '@certificate-service/sdk/core';

const SECRET = 'wh_sec_hardening_0123456789';
const NOW = 1_800_000_000_000;
const T = Math.floor(NOW / 1000);
const body = JSON.stringify({ id: 'whe_1', type: 'certificate.issued', createdAt: '2027-01-15T08:00:00Z', data: { id: 'rec_1', email: 'a@example.com' } });
const signed = (t = T) => signPayload(SECRET, body, t);
const TEN_YEARS_AGO = T - 10 * 365 * 24 * 3600;

describe('a non-finite window or clock is a clear error, never "accept any age"', () => {
  it.each([
    ['toleranceSeconds NaN', { toleranceSeconds: NaN, now: NOW }, /toleranceSeconds must be a finite number.*got NaN/],
    ['toleranceSeconds "garbage"', { toleranceSeconds: 'garbage' as unknown as number, now: NOW }, /toleranceSeconds .*got the text "garbage"/],
    ['toleranceSeconds Infinity', { toleranceSeconds: Infinity, now: NOW }, /toleranceSeconds .*got Infinity/],
    ['toleranceSeconds negative', { toleranceSeconds: -5, now: NOW }, /toleranceSeconds .*0 or more/],
    ['toleranceSeconds null', { toleranceSeconds: null as unknown as number, now: NOW }, /toleranceSeconds .*got object/],
    ['now NaN', { now: NaN }, /now must be a valid Date or epoch milliseconds.*got NaN/],
    ['now "garbage"', { now: 'garbage' as unknown as number }, /now must be .*got the text "garbage"/],
    ['now an Invalid Date', { now: new Date('not a date') }, /now must be .*an Invalid Date/],
  ])('%s', (_label, options, message) => {
    // The delivery is ten years old: with NaN in the comparison it used to pass.
    const result = checkDelivery(body, signed(TEN_YEARS_AGO), SECRET, options);
    expect(result).toEqual({ ok: false, reason: 'INVALID_OPTIONS', message: expect.stringMatching(message) });
    expect(() => verifyDelivery(body, signed(TEN_YEARS_AGO), SECRET, options)).toThrow(WebhookVerificationError);
    expect(checkSignature(body, signed(), SECRET, options)).toMatchObject({ ok: false, reason: 'INVALID_OPTIONS' });
  });

  it('valid options still work: a Date, epoch ms, and the default window', () => {
    expect(checkDelivery(body, signed(), SECRET, { now: new Date(NOW) }).ok).toBe(true);
    expect(checkDelivery(body, signed(), SECRET, { now: NOW, toleranceSeconds: 0 }).ok).toBe(true);
    expect(checkDelivery(body, signed(TEN_YEARS_AGO), SECRET, { now: NOW })).toMatchObject({ reason: 'TIMESTAMP_TOO_OLD' });
  });
});

describe('checkDelivery never throws', () => {
  const throwingToString = { toString: () => { throw new Error('boom'); } };
  it.each([
    ['null options', () => checkDelivery(body, signed(), SECRET, null)],
    ['undefined headers', () => checkDelivery(body, undefined, SECRET)],
    ['null headers', () => checkDelivery(body, null, SECRET)],
    ['a symbol as the signature value', () => checkDelivery(body, { 'x-service-signature': Symbol('sig') as unknown as string }, SECRET, { now: NOW })],
    ['a value whose toString throws', () => checkDelivery(body, { 'x-service-signature': throwingToString as unknown as string }, SECRET, { now: NOW })],
    ['a list holding a throwing value', () => checkDelivery(body, { 'x-service-signature': [throwingToString] as unknown as string[] }, SECRET, { now: NOW })],
    ['headers whose getter throws', () => checkDelivery(body, Object.defineProperty({}, 'x-service-signature', { enumerable: true, get: () => { throw new Error('getter'); } }), SECRET, { now: NOW })],
    ['a Proxy that throws on every access', () => checkDelivery(body, new Proxy({}, { ownKeys: () => { throw new Error('trap'); }, get: () => { throw new Error('trap'); } }), SECRET, { now: NOW })],
    ['options whose getter throws', () => checkDelivery(body, signed(), SECRET, Object.defineProperty({}, 'now', { get: () => { throw new Error('getter'); } }))],
    ['secrets of the wrong type', () => checkDelivery(body, signed(), 42 as unknown as string, { now: NOW })],
    ['a number as the body', () => checkDelivery(12 as unknown as string, signed(), SECRET, { now: NOW })],
  ])('%s: a refusal, not an exception', (_label, call) => {
    let result: ReturnType<typeof checkDelivery> | undefined;
    expect(() => (result = call())).not.toThrow();
    expect(result!.ok).toBe(false);
    expect(typeof (result as { message: string }).message).toBe('string');
  });
});

it('an unreadable X-Service-Timestamp counts as absent: the signed t decides (and a forgery still fails)', () => {
  const bad = { 'X-Service-Timestamp': Symbol('t') as unknown as string };
  expect(checkDelivery(body, { ...signed(), ...bad }, SECRET, { now: NOW })).toMatchObject({ ok: true });
  expect(checkDelivery(body, { ...signed(TEN_YEARS_AGO), ...bad }, SECRET, { now: NOW })).toMatchObject({ ok: false, reason: 'TIMESTAMP_TOO_OLD' });
});

describe('headers as a Map or a WHATWG Headers are read', () => {
  it('Headers (fetch): case-insensitive', () => {
    const headers = new Headers(signed());
    expect(checkDelivery(body, headers, SECRET, { now: NOW })).toMatchObject({ ok: true });
    expect(getHeader(headers, 'x-service-timestamp')).toBe(String(T));
  });

  it('Map, with any letter case in its keys', () => {
    const headers = new Map(Object.entries(signed()).map(([k, v]) => [k.toUpperCase(), v]));
    expect(checkDelivery(body, headers, SECRET, { now: NOW })).toMatchObject({ ok: true });
  });

  it('a forged signature in a Map is still refused', () => {
    const headers = new Map(Object.entries(signPayload('wh_sec_other', body, T)));
    expect(checkDelivery(body, headers, SECRET, { now: NOW })).toMatchObject({ ok: false, reason: 'NO_MATCHING_SIGNATURE' });
  });
});

describe('DeliveryDeduper refuses a size that remembers nothing', () => {
  it.each([0, NaN, -1, 1.5, Infinity, '10' as unknown as number])('new DeliveryDeduper(%p) throws', (size) => {
    expect(() => new DeliveryDeduper(size)).toThrow(/maxSize must be a whole number of at least 1/);
  });

  it('a size of 1 still catches the immediate duplicate', () => {
    const d = new DeliveryDeduper(1);
    expect(d.seen('whd_1')).toBe(false);
    expect(d.seen('whd_1')).toBe(true);
  });
});
