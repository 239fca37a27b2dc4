// What a transport's rejection means: a timeout, a network failure (and whether it happened
// before a connection was made, so nothing was sent), or neither: the host's own error. Hosts
// wrap socket errors differently (n8n in NodeApiError, fetch in a TypeError), so causes are read.

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/**
 * Failures before a connection was made: nothing was sent, so even a POST that issues may be tried
 * again, and the outcome of the call is known (not applied). A connect timeout is among them, but
 * not repeated: it has already waited the transport's connect timeout. So is a failed TLS
 * handshake (`ERR_SSL_…`): an https:// URL pointed at a plain-http server fails there.
 */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_SOCKET_CONNECTION_TIMEOUT']);

/** The code of the first cause (hosts wrap them differently) that says no connection was made, if any. */
export function connectFailure(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && (CONNECT_CODES.has(code) || code.startsWith('ERR_SSL_'))) return code;
    if (e instanceof Error && e.name === 'ConnectTimeoutError') return 'UND_ERR_CONNECT_TIMEOUT';
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Finds a network failure in an error or its causes (hosts wrap them differently). */
export function classifyNetworkError(error: unknown): 'TIMEOUT' | 'NETWORK_ERROR' | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return 'TIMEOUT';
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('ERR_SSL_'))) return 'NETWORK_ERROR';
    if (name === 'TimeoutError' || name === 'AbortError') return 'TIMEOUT';
    if (typeof message === 'string' && /socket hang up|other side closed|fetch failed/i.test(message)) return 'NETWORK_ERROR';
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
