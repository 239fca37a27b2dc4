import type { HeaderBag } from './headers';

/**
 * The one seam between the core and a platform. Each host passes its own:
 * Zapier wraps `z.request`, n8n wraps `httpRequestWithAuthentication`,
 * standalone code uses `createFetchTransport` (a separate entry point).
 *
 * A transport resolves for every HTTP status (the core maps errors itself) and
 * rejects only when no response arrived (connection refused/reset, timeout).
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
