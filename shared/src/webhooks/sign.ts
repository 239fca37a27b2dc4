import { createHmac } from 'crypto';

/** The exact bytes that are signed: `<t>.<raw body>` (spec section 6). */
export function signedContent(rawBody: string | Buffer, t: number): Buffer {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return Buffer.concat([Buffer.from(`${t}.`, 'utf8'), body]);
}

export function computeSignature(secret: string, rawBody: string | Buffer, t: number): string {
  return createHmac('sha256', secret).update(signedContent(rawBody, t)).digest('hex');
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
