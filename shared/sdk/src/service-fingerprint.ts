import { createHash } from 'crypto';
import { normaliseBaseUrl } from './base-url';

/**
 * Which service a caller talks to, as whoever holds its key: a hash of the base URL (as the
 * client normalises it) and the API key (trimmed), so no key is kept, compared or written. One
 * fingerprint for every user: the in-flight holds of issue runs, the MCP server's confirmation
 * tokens, the Zapier app's cache keys. Another base URL or another key is another service.
 */
export function serviceFingerprint(baseUrl: string | undefined, apiKey: string | undefined): string {
  let base = (baseUrl ?? '').trim();
  try {
    base = normaliseBaseUrl(base);
  } catch {
    // A base URL the client would refuse never reaches the service: its own text keys it.
  }
  return createHash('sha256').update(JSON.stringify([base, (apiKey ?? '').trim()])).digest('hex').slice(0, 32);
}
