import type { HttpResponse, Transport } from './transport';

/**
 * A transport on the runtime's built-in fetch: `createClient({ transport: createFetchTransport() })`
 * where undici's own request API is not wanted (the default is `createUndiciTransport`).
 * Kept out of the core entry so hosts with their own HTTP stack never load it.
 */
export function createFetchTransport(options: { timeoutMs?: number } = {}): Transport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return async (request) => {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const headers: HttpResponse['headers'] = {};
    response.headers.forEach((value, key) => (headers[key] = value));
    return { status: response.status, headers, body: await response.text() };
  };
}
