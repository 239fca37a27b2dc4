import { validationError } from './errors';
import { isLoopbackHost } from './local-server';

const API_PREFIX = '/api/v1';
const API = '/api';

/**
 * Parses a URL the connectors send to or subscribe: HTTPS is required except on
 * loopback, so keys and deliveries never travel in clear text.
 */
export function parseSecureUrl(input: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw validationError(field, `"${input}" is not a valid URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw validationError(field, 'must use https:// (http:// is only allowed for localhost)');
  }
  return url;
}

/**
 * Normalises the configured base URL: trims, drops trailing slashes and completes the
 * path to `/api/v1` (a URL ending in `/api` gets `/v1`, any other gets `/api/v1`). A URL
 * that ends in another version (`/api/v2`) is refused, not completed to `/api/v2/api/v1`:
 * these connectors speak version 1 only. HTTPS is required except on loopback, so a key is
 * never sent in clear text (see parseSecureUrl). There is deliberately no default host.
 */
export function normaliseBaseUrl(input: unknown, field = 'baseUrl'): string {
  if (typeof input !== 'string' || !input.trim()) {
    throw validationError(field, 'the API base URL is required, e.g. https://<your service host>/api/v1');
  }
  const url = parseSecureUrl(input.trim(), field);
  if (url.search || url.hash) throw validationError(field, 'must not contain a query string or fragment');
  let path = url.pathname.replace(/\/+$/, '');
  const version = /\/api\/(v\d+)$/.exec(path);
  if (version && `/api/${version[1]}` !== API_PREFIX) {
    throw validationError(field, `ends in /api/${version[1]}, but these connectors speak version 1 of the API: use ${url.origin}${path.slice(0, version.index)}${API_PREFIX}`);
  }
  if (path.endsWith(API)) path = path.slice(0, -API.length);
  if (!path.endsWith(API_PREFIX)) path += API_PREFIX;
  return `${url.origin}${path}`;
}
