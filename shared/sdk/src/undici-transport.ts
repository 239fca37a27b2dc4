import { Agent, request, type Dispatcher } from 'undici';
import type { HttpResponse, Transport } from './transport';

export interface UndiciTransportOptions {
  /** Time to open a TCP/TLS connection (default 10 s). */
  connectTimeoutMs?: number;
  /** Time from sending the request to the response headers (default 30 s). */
  headersTimeoutMs?: number;
  /** Longest gap between two chunks of the response body (default 30 s). */
  bodyTimeoutMs?: number;
  /** Most open connections per origin (default 16); further requests queue for a free one. */
  connections?: number;
  /** How long an idle connection is kept for reuse (default 4 s, or less when the server says so). */
  keepAliveTimeoutMs?: number;
  /** Your own undici dispatcher (proxy, mock, shared pool) instead of the one made here. */
  dispatcher?: Dispatcher;
}

/** A transport that also owns a connection pool, closed with `close()`. */
export type PooledTransport = Transport & { close(): Promise<void> };

/**
 * The default transport of `createClient`: `undici.request` over one keep-alive Agent, so a run
 * of calls reuses a few connections instead of opening one each. Every failure without a
 * response rejects with undici's own error (code `UND_ERR_*` or the socket's `E*`), which the
 * core classifies as NETWORK_ERROR or TIMEOUT exactly as it does for fetch.
 */
export function createUndiciTransport(options: UndiciTransportOptions = {}): PooledTransport {
  const agent =
    options.dispatcher ??
    new Agent({
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      bodyTimeout: options.bodyTimeoutMs ?? 30_000,
      connections: options.connections ?? 16,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    });
  const transport = async (req: Parameters<Transport>[0]): Promise<HttpResponse> => {
    const response = await request(req.url, { method: req.method, headers: req.headers, body: req.body, dispatcher: agent });
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
  };
  // A dispatcher passed in belongs to the caller, who closes it.
  return Object.assign(transport, { close: () => (options.dispatcher ? Promise.resolve() : agent.close()) });
}
