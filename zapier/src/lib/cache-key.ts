import { createHash } from 'node:crypto';

/**
 * A z.cache key for one connection (base URL and API key) and what it is about (a batch, an
 * email). Hashed, so the API key is never a cache key or anywhere in the cache; another key or
 * base URL never shares an entry.
 */
export function connectionCacheKey(kind: string, authData: Record<string, unknown> | undefined, ...parts: string[]): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([String(authData?.baseUrl ?? '').trim(), String(authData?.apiKey ?? ''), ...parts]))
    .digest('hex');
  return `certsvc:${kind}:${digest}`;
}
