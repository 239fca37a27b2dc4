import type { HeaderBag } from './headers';

/**
 * The one seam between the core and a platform. Each host passes its own: Zapier wraps
 * `z.request`, n8n wraps `httpRequestWithAuthentication`, the SDK's `createClient` uses undici
 * (`createUndiciTransport`; `createFetchTransport` is the other choice), both in the SDK's main
 * entry, never in the core's.
 *
 * A transport should resolve for every HTTP status (the core maps errors itself) and reject
 * only when no response arrived (connection refused or reset, timeout): the core retries what
 * it recognises as such. Anything else it throws is taken as the host's own failure: a
 * TRANSPORT_ERROR, never repeated, with the outcome of an issue call unknown.
 */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  /** JSON text, already serialised. */
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** A plain object, a `Map` or a WHATWG `Headers`: read case-insensitively. */
  headers: HeaderBag;
  /** Raw text or an already-parsed JSON value; empty for 204. */
  body: unknown;
}

export type Transport = (request: HttpRequest) => Promise<HttpResponse>;
