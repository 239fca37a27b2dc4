// `--http`: one endpoint for both protocol eras, on 127.0.0.1 by default. A request with the
// 2026-07-28 `_meta` envelope goes to the 2.x SDK's stateless handler (modern.ts); anything
// else (initialize, Mcp-Session-Id, GET/DELETE) to streamable HTTP with one MCP session per
// client, as 2025-era clients expect. `isLegacyRequest` is the SDK's own routing rule. Every request, whatever its method, passes one guard first:
// - Authorization: Bearer <token> (CERTSVC_MCP_TOKEN, or one made at start and printed once
//   on stderr), compared in constant time;
// - Host must name this server (a loopback name, or the --host given), against DNS rebinding;
//   Origin, when a browser sends one, must be this server's own origin (the MCP spec requires
//   servers to check it, for the same reason): the SDK's foreignRequest, which the sandbox runs too.
// A --host that is not loopback is refused unless --allow-remote; the token is required anyway.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { foreignRequest, isLoopbackHost, isWildcardHost, serverHostNames } from '@certificate-service/sdk';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { Logger } from './log';
import { createModernServer } from './modern';
import { createServer, UsageError, type CertificateMcpServer, type ServerOptions } from './server';

export const DEFAULT_PORT = 8766;
const MIN_TOKEN_LENGTH = 24;
/** The SDK's own bound on a POST body (DEFAULT_MAX_REQUEST_BODY_SIZE, 4 MiB). */
const MAX_BODY = 4 * 1024 * 1024;

export interface HttpOptions {
  host?: string;
  port?: number;
  allowRemote?: boolean;
  /** CERTSVC_MCP_TOKEN; when absent a token is made and printed once on stderr. */
  token?: string;
  /** What each server is made with: a fresh one per 2025-era MCP session (createServer) and per 2026-07-28 request (createModernServer). */
  server: ServerOptions;
  log: Logger;
  /** Where the generated token is printed (stderr). */
  announce: (text: string) => void;
}

export interface RunningHttp {
  url: string;
  token: string;
  close(): Promise<void>;
}

/** Why a request is refused, or undefined when it may go on. */
export function guard(req: { method?: string; headers: http.IncomingHttpHeaders }, token: string, hosts: string[]): { status: number; message: string } | undefined {
  const auth = req.headers.authorization ?? '';
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(auth);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 401, message: 'Missing or wrong bearer token: send "Authorization: Bearer <token>" (CERTSVC_MCP_TOKEN, or the token printed when the server started).' };
  const foreign = foreignRequest(req.method ?? 'GET', req.headers, hosts);
  return foreign && { status: 403, message: foreign.message };
}

export async function serveHttp(options: HttpOptions): Promise<RunningHttp> {
  const host = options.host ?? '127.0.0.1';
  if (isWildcardHost(host)) throw new UsageError(`--host ${host || '""'} listens on every address; give the one address clients use (with --allow-remote).`);
  if (!isLoopbackHost(host) && !options.allowRemote) throw new UsageError(`--host ${host} is not a loopback address: anyone who can reach it could use the API key. Add --allow-remote if you mean it (the bearer token is still required).`);
  if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH) throw new UsageError(`CERTSVC_MCP_TOKEN is too short: use at least ${MIN_TOKEN_LENGTH} random characters.`);
  const token = options.token ?? randomBytes(24).toString('base64url');
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; mcp: CertificateMcpServer }>();
  let hosts: string[] = [];
  // Stopping: new requests are refused (503) while the POSTs in flight finish and answer.
  let stopping = false;
  const inFlight = new Set<http.ServerResponse>();
  let drained: (() => void) | undefined;
  const modern = createMcpHandler(() => createModernServer(options.server), { legacy: 'reject', onerror: (error) => options.log.warn(`2026-07-28 request failed: ${error.message}`) });

  const server = http.createServer((req, res) => {
    if (stopping) {
      res.writeHead(503, { 'Content-Type': 'application/json', Connection: 'close' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'The server is stopping.' }, id: null }));
      return;
    }
    if (req.method === 'POST') {
      inFlight.add(res);
      res.once('close', () => {
        inFlight.delete(res);
        if (!inFlight.size) drained?.();
      });
    }
    const refused = guard(req, token, hosts);
    if (refused) {
      res.writeHead(refused.status, { 'Content-Type': 'application/json', ...(refused.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}) });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: refused.message }, id: null }));
      return;
    }
    void handle(req, res).catch((error: unknown) => {
      options.log.warn(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let parsedBody: unknown;
    if (req.method === 'POST') {
      const body = await readBody(req);
      if (body === undefined) return void res.writeHead(413, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: `Request body over ${MAX_BODY} bytes.` }, id: null }));
      const aborted = new AbortController();
      res.once('close', () => aborted.abort());
      const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: 'POST', headers: webHeaders(req), body, signal: aborted.signal });
      if (!(await isLegacyRequest(request))) return send(await modern.fetch(request), res);
      try {
        parsedBody = JSON.parse(body.toString('utf8'));
      } catch {
        return void res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON.' }, id: null }));
      }
    }
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    if (existing) return existing.transport.handleRequest(req, res, parsedBody);
    if (id !== undefined || req.method !== 'POST') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found: start one with an initialize request.' }, id: null }));
      return;
    }
    // A new session: the transport answers anything but initialize with an error itself.
    const mcp = createServer(options.server);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, mcp }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcp.server.connect(transport);
    await transport.handleRequest(req, res, parsedBody);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  hosts = serverHostNames(host, port);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`;
  if (options.token === undefined) options.announce(`certsvc-mcp: bearer token for ${url} (shown once; set CERTSVC_MCP_TOKEN to choose your own): ${token}\n`);
  options.log.info(`listening on ${url} (streamable HTTP; every request needs the bearer token)`);

  return {
    url,
    token,
    close: async () => {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Calls in flight finish and their answers reach the client; then the sessions close.
      if (inFlight.size) await new Promise<void>((resolve) => (drained = resolve));
      for (const { transport, mcp } of sessions.values()) {
        await mcp.idle();
        await transport.close().catch(() => undefined);
      }
      await modern.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The body, or undefined past MAX_BODY. */
async function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function webHeaders(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/** A web Response (the 2.x handler's) onto the Node response, streamed (it may be SSE). */
async function send(response: Response, res: http.ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (res.destroyed) break;
      res.write(chunk);
    }
  }
  res.end();
}
