import { createHmac } from 'crypto';

// The signed string is `<t>.<raw body>` (spec section 6).

/** Hex HMAC-SHA256 of `<t>.<raw body>`. A Buffer body is fed in two parts so it is never copied. */
export function computeSignature(secret: string, rawBody: string | Buffer, t: number): string {
  const hmac = createHmac('sha256', secret);
  return (typeof rawBody === 'string' ? hmac.update(`${t}.${rawBody}`) : hmac.update(`${t}.`).update(rawBody)).digest('hex');
}

/**
 * Signature headers for a delivery. Several secrets give several `v1` values,
 * which is how a delivery stays valid for receivers during a secret rotation.
 */
export function signPayload(
  secret: string | string[],
  rawBody: string | Buffer,
  t: number = Math.floor(Date.now() / 1000),
): { 'X-Service-Signature': string; 'X-Service-Timestamp': string } {
  const secrets = Array.isArray(secret) ? secret : [secret];
  const v1 = secrets.map((s) => `v1=${computeSignature(s, rawBody, t)}`).join(',');
  return { 'X-Service-Signature': `t=${t},${v1}`, 'X-Service-Timestamp': String(t) };
}
