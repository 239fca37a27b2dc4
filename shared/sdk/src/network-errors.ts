import { CertificateServiceError, type RequestIdentity } from './errors';

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

/** A timeout or network failure of `identity`; unless its outcome is known (nothing sent, or safe to repeat), an unknown outcome. */
export function networkError(kind: 'TIMEOUT' | 'NETWORK_ERROR', cause: unknown, identity: RequestIdentity, baseUrl: string, outcomeKnown: boolean) {
  const connect = connectFailure(cause);
  const what = connect ? `could not connect to ${new URL(baseUrl).origin}` : kind === 'TIMEOUT' ? 'timed out' : 'failed before a response arrived';
  // The first line only: OpenSSL's messages end in a newline and a source path.
  const reason = cause instanceof Error ? ` (${cause.message.split('\n')[0].trim()})` : '';
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
  const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : `a thrown ${cause === null ? 'null' : typeof cause}`;
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
