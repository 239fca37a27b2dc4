import { CertificateServiceError, isErrorLike, type RequestIdentity } from './errors';

// What a transport's rejection means: a timeout, a network failure (and whether it happened
// before a connection was made, so nothing was sent), or neither: the host's own error. Hosts
// wrap socket errors differently (n8n in NodeApiError, fetch in a TypeError), so causes are read.
// Then the error each becomes, and the error of a call whose outcome is unknown (sent, and no
// reliable answer: such a rejection, or a 5xx to a call that is not repeated).

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
  'EPROTO',
]);

/**
 * Failures before a connection was made: nothing was sent, so even a POST that issues may be tried
 * again, and the outcome of the call is known (not applied). A connect timeout is among them, but
 * not repeated: it has already waited the transport's connect timeout. So is a failed TLS
 * handshake (`ERR_SSL_…`): an https:// URL pointed at a plain-http server fails there.
 */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_SOCKET_CONNECTION_TIMEOUT']);

/**
 * The server's TLS certificate was refused (Node's codes, from OpenSSL's verify results): the
 * handshake stopped before the request was written, so nothing was sent either. A self-signed
 * certificate (a local or staging service) is the usual one; without this set it read as the
 * host's HTTP layer failing ("report it").
 */
const TLS_CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Some HTTP stacks (node-fetch 2, under Zapier's z.request) report a failed handshake as
 * `EPROTO` with OpenSSL's words ("SSL routines:…:packet length too long:"), where Node's own
 * sockets say `ERR_SSL_PACKET_LENGTH_TOO_LONG`: read back to that code, so both get one hint.
 */
function sslCode(code: string, message: unknown): string | undefined {
  if (code.startsWith('ERR_SSL_')) return code;
  const reason = code === 'EPROTO' && typeof message === 'string' ? /SSL routines:[^:]*:([^:]+):/.exec(message)?.[1] : undefined;
  return reason ? `ERR_SSL_${reason.trim().toUpperCase().replace(/\W+/g, '_')}` : undefined;
}

/** The code of the first cause (hosts wrap them differently) that says no connection was made, if any. */
export function connectFailure(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (CONNECT_CODES.has(code) || TLS_CERT_CODES.has(code))) return code;
    const ssl = typeof code === 'string' ? sslCode(code, message) : undefined;
    if (ssl) return ssl;
    if (isErrorLike(e) && e.name === 'ConnectTimeoutError') return 'UND_ERR_CONNECT_TIMEOUT';
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
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || TLS_CERT_CODES.has(code) || code.startsWith('ERR_SSL_'))) return 'NETWORK_ERROR';
    if (name === 'TimeoutError' || name === 'AbortError') return 'TIMEOUT';
    if (typeof message === 'string' && /socket hang up|other side closed|fetch failed/i.test(message)) return 'NETWORK_ERROR';
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A timeout or network failure of `identity`; unless its outcome is known (nothing sent, or safe to repeat), an unknown outcome. */
export function networkError(kind: 'TIMEOUT' | 'NETWORK_ERROR', cause: unknown, identity: RequestIdentity, baseUrl: string, outcomeKnown: boolean) {
  const connect = connectFailure(cause);
  const origin = new URL(baseUrl).origin;
  const what = !connect
    ? kind === 'TIMEOUT'
      ? 'timed out'
      : 'failed before a response arrived'
    : TLS_CERT_CODES.has(connect)
      ? `could not connect to ${origin}: its TLS certificate is not trusted here (${connect}: self-signed, expired, for another name, or from a CA this machine does not know)`
      : `could not connect to ${origin}`;
  // The first line only: OpenSSL's messages end in a newline and a source path.
  const reason = isErrorLike(cause) ? ` (${cause.message.split('\n')[0].trim()})` : '';
  const error = new CertificateServiceError({
    code: kind,
    phase: 'request',
    message: `${identity.method} ${identity.path} ${what}${reason}.`,
    request: identity,
    detail: connect ? { connect, baseUrl } : {},
    cause,
  });
  return outcomeKnown ? error : unknownOutcome(error, identity);
}

/** A host's HTTP function threw something that is not a network failure (a bug, a host limit, a refused credential). */
export function transportError(cause: unknown, identity: RequestIdentity, idempotent: boolean) {
  const what = isErrorLike(cause) ? `${cause.name}: ${cause.message}` : `a thrown ${cause === null ? 'null' : typeof cause}`;
  const error = new CertificateServiceError({
    code: 'TRANSPORT_ERROR',
    phase: 'transport',
    message: `${identity.method} ${identity.path}: the HTTP layer failed before an answer could be read (${what}).`,
    request: identity,
    cause,
  });
  return idempotent ? error : unknownOutcome(error, identity);
}

export function unknownOutcome(error: CertificateServiceError, identity: RequestIdentity): CertificateServiceError {
  const who = identity.recipients?.length
    ? ` for ${identity.recipients.length === 1 ? identity.recipients[0] : `${identity.recipients.length} recipients (${identity.recipients[0]} …)`}`
    : '';
  // The advice (not repeated, check before re-running) is the error's `hint`, written once.
  const transport = error.phase === 'transport';
  return new CertificateServiceError({
    code: error.code,
    phase: transport ? 'transport' : 'request',
    status: error.status,
    detail: error.detail,
    request: identity,
    outcomeUnknown: true,
    cause: error,
    message: `Outcome unknown: ${identity.method} ${identity.path}${who} ${transport ? 'may have been sent, and no answer could be read' : 'was sent but no reliable answer came back'} (${error.message}).`,
  });
}
