import type { Bundle, ZObject } from 'zapier-platform-core';
import type { CertificateServiceClient, DesignVariable } from '@certificate-service/sdk/core';
import { connectionCacheKey } from './cache-key';

// The design check (on by default in the core's issueMany) reads the batch and its design:
// two requests. A Zap issues one item per run, so that would triple its requests against the
// service's 120 a minute. So the variables are read as the core would (client.getDesignVariables)
// and kept in z.cache for a few minutes, then handed to issueMany as the variables it holds
// (its `variables` Map, which counts as the check).

/**
 * Five minutes: a Zap that issues on every trigger reads the design at most once per five
 * minutes per batch (two requests, not two per run), and a design edited in the service counts
 * here within five minutes. Meanwhile the service still checks what it is sent.
 */
export const DESIGN_CACHE_TTL_SECONDS = 300;

/** The cache key: one connection and one batch (hashed: cache-key.ts). */
export function designCacheKey(authData: Record<string, unknown> | undefined, batchId: string): string {
  return connectionCacheKey('design-variables:v1', authData, batchId);
}

const isVariable = (v: unknown): v is DesignVariable =>
  !!v && typeof v === 'object' && typeof (v as DesignVariable).name === 'string' && typeof (v as DesignVariable).label === 'string' && typeof (v as DesignVariable).required === 'boolean';

/**
 * The batch's design variables by batch id, for issueMany's `variables`: from z.cache when a run
 * in the last five minutes read them, else read now and kept. A read that fails throws (the
 * step fails before anything is sent, its error mapped once by withClient). z.cache itself may
 * be missing or failing (`zapier invoke` and local runs have no RPC): the read is then made
 * every run, as without a cache.
 */
export async function designVariables(z: ZObject, bundle: Pick<Bundle, 'authData'>, client: CertificateServiceClient, batchId: string): Promise<Map<string, DesignVariable[]> | undefined> {
  if (!batchId) return undefined; // the core refuses the item, naming batchId, before any read
  const key = designCacheKey(bundle.authData, batchId);
  const cached = await Promise.resolve()
    .then(() => z.cache.get(key) as Promise<unknown>)
    .catch(() => undefined);
  // Only a list of well-formed variables counts: anything else is read again, never trusted.
  if (Array.isArray(cached) && cached.every(isVariable)) return new Map([[batchId, cached]]);
  const variables = await client.getDesignVariables(batchId);
  await Promise.resolve()
    .then(() => z.cache.set(key, variables, DESIGN_CACHE_TTL_SECONDS))
    .catch(() => undefined);
  return new Map([[batchId, variables]]);
}
