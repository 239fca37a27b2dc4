// HTTP front door. Every request first passes the SDK's local-server check (foreignRequest):
// a Host the sandbox does not listen under (DNS rebinding) or a request from another site's
// page is refused with a 403, whatever the route (docs/design/sandbox.md, "Who can drive it").
// /api/v1 requests then go through: count -> injected fault -> auth -> rate limit -> route ->
// JSON body -> handler. /__sandbox (controls), /v/ (public viewer) and / in a browser (the
// overview page) skip auth, the rate limit and the counters.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { foreignRequest, type ForeignRequest } from '@certificate-service/sdk';
import type { SandboxContext } from './context';
import type { SandboxControls } from './controls';
import { ApiError } from './errors';
import type { Fault } from './faults';
import { type Headers, parseJsonBody, readBody, sendEmpty, sendHtml, sendJson } from './http-io';
import { HtmlPage } from './list-shapes';
import { type RateLimitState, rateLimitHeaders } from './rate-limit';
import type { Reply } from './router';
import { createApiRouter } from './routes';
import { type ControlRequest, createControlRouter } from './routes/controls';
import { handleDashboard, wantsHtml } from './routes/dashboard';
import { handleViewer } from './routes/viewer';
import type { WorkspaceRecord } from './store';

export const API_PREFIX = '/api/v1';
const CONTROL_PREFIX = '/__sandbox';
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function createServer(sb: SandboxContext, controls: SandboxControls, info: () => unknown): http.Server {
  const api = createApiRouter();
  const control = createControlRouter();

  async function handleApi(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: URLSearchParams) {
    const rel = path.slice(API_PREFIX.length) || '/';
    const match = api.match(method, rel);
    sb.counters.request(match ? `${method} ${match.route.pattern}` : `${method} (unmatched)`);
    const bearer = bearerToken(req);

    // The body is read first: a request that arrived whole is processed even when its client
    // leaves during a delay, as a real service finishes what it received (a socket closed later
    // does not undo it).
    const received = readBody(req).then(
      (raw) => ({ raw }),
      (error: unknown) => ({ error }),
    );
    const fault = sb.faults.take(method, rel, path);
    let resetAfterCommit = false;
    if (fault) {
      sb.counters.faultsInjected++;
      // A plain timer, not sb.timers: reset() must not strand a request mid-delay.
      if (fault.kind === 'delay') await Promise.all([received, new Promise((r) => setTimeout(r, fault.delayMs).unref())]);
      else if (fault.kind === 'reset-after-commit') resetAfterCommit = true;
      else return sendFault(req, res, fault, sb.rateLimiter.peek(bearer));
    }

    let headers: Headers = rateLimitHeaders(sb.rateLimiter.peek(null));
    const reply = await (async (): Promise<Reply> => {
      try {
        const read = await received;
        if ('error' in read) throw read.error;
        const raw = read.raw;
        const ws = authenticate(sb, bearer, req);
        // Rate limit is per key, so it is counted only once the key is known.
        const limit = sb.rateLimiter.consume(bearer!);
        headers = rateLimitHeaders(limit);
        if (limit && !limit.allowed) {
          sb.counters.rateLimited++;
          headers['Retry-After'] = String(limit.resetSeconds);
          throw rateLimited(limit);
        }
        if (!match) throw new ApiError('NOT_FOUND', `No route ${method} ${path}. Paths are relative to ${API_PREFIX}.`, { method, path });
        const body = BODY_METHODS.has(method) ? parseJsonBody(raw, req.headers['content-type']) : undefined;
        return await match.route.handler({ sb, ws, query, body, req }, match.params);
      } catch (err) {
        return errorReply(err);
      }
    })();

    // The request is fully processed (state, quota, events); the client just never hears back.
    if (resetAfterCommit) return void req.socket.destroy();
    // The service's clock (options.clock), which also stamps createdAt: a poll reads it here.
    writeReply(res, reply, { ...headers, Date: new Date(sb.now()).toUTCString() });
  }

  async function handleControl(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: URLSearchParams) {
    const match = control.match(method, path.slice(CONTROL_PREFIX.length) || '/');
    const reply = await (async (): Promise<Reply> => {
      try {
        if (!match) throw new ApiError('NOT_FOUND', `No sandbox control ${method} ${path}; see the sandbox README (@certificate-service/sandbox).`, {});
        const body = parseJsonBody(await readBody(req), req.headers['content-type']);
        const c: ControlRequest = { controls, info, query, body };
        return await match.route.handler(c, match.params);
      } catch (err) {
        return errorReply(err);
      }
    })();
    writeReply(res, reply, {});
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
    const method = (req.method ?? 'GET').toUpperCase();
    const foreign = foreignRequest(method, req.headers, sb.hostNames);
    if (foreign) return writeReply(res, errorReply(refusal(foreign)), {});
    if (path === CONTROL_PREFIX || path.startsWith(CONTROL_PREFIX + '/')) return handleControl(req, res, method, path, query);
    // The overview page, for a browser only: a JSON client of `/` keeps its 404 below.
    if (path === '/' && method === 'GET' && wantsHtml(req)) return handleDashboard(sb, res, query, sb.origin + API_PREFIX);
    if (path.startsWith('/v/') && method === 'GET') return handleViewer(sb, req, res, safeDecode(path.slice(3)));
    if (path === API_PREFIX || path.startsWith(API_PREFIX + '/')) return handleApi(req, res, method, path, query);
    const notFound = new ApiError('NOT_FOUND', `No route ${method} ${path}. The API lives under ${API_PREFIX}.`, { method, path });
    writeReply(res, errorReply(notFound), rateLimitHeaders(sb.rateLimiter.peek(null)));
  }

  return http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent && !res.destroyed) writeReply(res, errorReply(err), {});
    });
  });
}

function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : '';
}

function authenticate(sb: SandboxContext, bearer: string | null, req: IncomingMessage): WorkspaceRecord {
  if (bearer === null || /^Bearer\s*$/i.test(req.headers.authorization ?? '')) {
    throw new ApiError('MISSING_API_KEY', 'No API key sent. Send the header Authorization: Bearer <API_KEY>.');
  }
  if (bearer === '') {
    throw new ApiError('INVALID_API_KEY', 'The Authorization header must be of the form "Bearer <API_KEY>".');
  }
  const key = sb.store.apiKeys.get(bearer);
  const ws = key && sb.store.workspaces.get(key.workspaceId);
  if (!key || !ws) throw new ApiError('INVALID_API_KEY', 'The API key is not recognized. Check that it was copied in full.');
  if (key.expiresAt !== null && key.expiresAt <= Date.now()) {
    throw new ApiError('EXPIRED_API_KEY', 'The API key has expired. Create a new key in the API keys settings.', {
      expiredAt: new Date(key.expiresAt).toISOString(),
    });
  }
  return ws;
}

/** The core's reason, and for a Host what to do when the name is one's own. */
function refusal(foreign: ForeignRequest): ApiError {
  const hint = foreign.header === 'Host' ? ' If that name is how you reach this sandbox, start it with --allow-host <name> (the allowedHosts option).' : '';
  return new ApiError('FORBIDDEN', foreign.message + hint, { header: foreign.header, value: foreign.value });
}

function rateLimited(state: RateLimitState): ApiError {
  return new ApiError('RATE_LIMITED', `More than ${state.limit} requests in the current window for this key; retry after ${state.resetSeconds} s.`, {
    limit: state.limit,
    retryAfterSeconds: state.resetSeconds,
  });
}

function sendFault(req: IncomingMessage, res: ServerResponse, fault: Fault, state: RateLimitState | null): void {
  const headers = rateLimitHeaders(state);
  switch (fault.kind) {
    case 'reset-before-commit':
      return void req.socket.destroy();
    case '429':
      headers['Retry-After'] = String(fault.retryAfterSeconds);
      if (state) headers['RateLimit-Remaining'] = '0';
      return sendJson(res, 429, new ApiError('RATE_LIMITED', `Too many requests (injected fault); retry after ${fault.retryAfterSeconds} s.`, { injected: true }).toBody(), headers);
    case '500':
      return sendJson(res, 500, new ApiError('INTERNAL_ERROR', 'Internal server error (injected fault).', { injected: true }).toBody(), headers);
    case '502':
      // What a gateway in front of the service sends: HTML, not the JSON envelope.
      return sendHtml(res, 502, '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>', headers);
    default:
      return;
  }
}

function errorReply(err: unknown): Reply {
  if (err instanceof ApiError) return { status: err.status, body: err.toBody() };
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, body: new ApiError('INTERNAL_ERROR', `Sandbox bug: ${message}`).toBody() };
}

function writeReply(res: ServerResponse, reply: Reply, headers: Headers): void {
  if (res.destroyed) return;
  if (reply.body === undefined) sendEmpty(res, reply.status, headers);
  else if (reply.body instanceof HtmlPage) sendHtml(res, reply.status, reply.body.html, headers);
  else sendJson(res, reply.status, reply.body, headers);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
