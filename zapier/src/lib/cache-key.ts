import { createHash } from 'node:crypto';
import { serviceFingerprint } from '@certificate-service/sdk/core';

/**
 * A z.cache key for one connection (the SDK's serviceFingerprint of its base URL and API key)
 * and what it is about (a batch, an email). Hashed, so neither the API key nor an email is a
 * cache key or anywhere in the cache; another key or base URL never shares an entry.
 */
export function connectionCacheKey(kind: string, authData: Record<string, unknown> | undefined, ...parts: string[]): string {
  const service = serviceFingerprint(String(authData?.baseUrl ?? ''), String(authData?.apiKey ?? ''));
  const digest = createHash('sha256').update(JSON.stringify([service, ...parts])).digest('hex');
  return `certsvc:${kind}:${digest}`;
}
