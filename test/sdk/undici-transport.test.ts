// The undici transport (createClient's default) against the fetch transport it replaces: the same
// failures give the same errors (NETWORK_ERROR / TIMEOUT, outcome unknown for an issue call, GETs
// retried), and the pool keeps connections alive and bounded.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errors as undiciErrors } from 'undici';
import { CertificateServiceClient, CertificateServiceError, type Transport } from '@certificate-service/sdk/core';
import { classifyNetworkError } from '../../shared/sdk/src/network-errors';
import { createFetchTransport, createUndiciTransport } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
});
afterAll(() => sb.close());

const transports: Record<string, (timeoutMs: number) => Transport> = {
  undici: (timeoutMs) => createUndiciTransport({ headersTimeoutMs: timeoutMs, bodyTimeoutMs: timeoutMs }),
  fetch: (timeoutMs) => createFetchTransport({ timeoutMs }),
};

function client(transport: Transport, baseUrl = sb.baseUrl, apiKey = sb.apiKey) {
  return new CertificateServiceClient({ baseUrl, apiKey, transport, sleep: async () => {}, retry: { maxRetries: 2 } });
}

async function failure(promise: Promise<unknown>): Promise<CertificateServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CertificateServiceError);
  return error as CertificateServiceError;
}

describe.each(Object.keys(transports))('%s transport', (name) => {
  const make = transports[name];

  test('connection reset after the issue was committed: NETWORK_ERROR, outcome unknown, sent once, never retried', async () => {
    const ws = sb.controls.createWorkspace();
    const c = client(make(5_000), sb.baseUrl, ws.apiKey);
    const batch = await c.createBatch({ title: 'Reset', designId: 'design_classic' });
    sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: '^/api/v1/batches/[^/]+/recipients$' } });
    sb.controls.resetCounters();
    const error = await failure(c.issueCertificate(batch.id, { name: 'Ada', email: 'ada@example.com' }));
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', outcomeUnknown: true, status: 0 });
    expect(error.message).toMatch(/^Outcome unknown: POST .* for ada@example.com/);
    expect(sb.controls.counters().requests.total).toBe(1);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(1);
  });

  test('connection reset before a GET was processed: retried, then it succeeds', async () => {
    sb.controls.injectFaults({ kind: 'reset-before-commit', match: { method: 'GET', path: '/api/v1/designs' } });
    const page = await client(make(5_000)).listDesigns();
    expect(page.items.map((d) => d.id)).toContain('design_classic');
    expect(sb.controls.faults()).toEqual([]);
  });

  test('no answer within the timeout on an issue call: TIMEOUT, outcome unknown, not retried', async () => {
    const ws = sb.controls.createWorkspace();
    const c = client(make(300), sb.baseUrl, ws.apiKey);
    const batch = await c.createBatch({ title: 'Slow', designId: 'design_classic' });
    sb.controls.injectFaults({ kind: 'delay', delayMs: 1_500, match: { method: 'POST', path: '^/api/v1/batches/[^/]+/recipients$' } });
    sb.controls.resetCounters();
    const error = await failure(c.issueCertificate(batch.id, { name: 'Ada', email: 'ada@example.com' }));
    expect(error).toMatchObject({ code: 'TIMEOUT', outcomeUnknown: true });
    expect(sb.controls.counters().requests.total).toBe(1);
  });

  test('nothing listening: NETWORK_ERROR after the GET retries', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(client(make(5_000), `http://127.0.0.1:${port}`).listDesigns());
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', outcomeUnknown: false });
  });

  test('headers, then a body that stalls: TIMEOUT', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"data": [');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const c = new CertificateServiceClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk_test_abcdef', transport: make(300), sleep: async () => {}, retry: { maxRetries: 0 } });
      expect(await failure(c.listDesigns())).toMatchObject({ code: 'TIMEOUT' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('undici pool', () => {
  let server: http.Server;
  let sockets: Socket[];
  let inFlight = 0;
  let maxInFlight = 0;
  beforeAll(async () => {
    sockets = [];
    server = http.createServer((_req, res) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":[],"hasMore":false}');
      }, 5);
    });
    server.on('connection', (socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const base = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Here undici sometimes opened a second connection for calls made one after another (the next
  // call is queued as the last response ends); never more than two.
  test('keep-alive: 200 calls one after another reuse 1 or 2 connections', async () => {
    sockets.length = 0;
    const transport = createUndiciTransport();
    const c = client(transport, base(), 'sk_test_abcdef');
    for (let i = 0; i < 200; i++) await c.listDesigns();
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    expect(sockets.length).toBeLessThanOrEqual(2);
    await transport.close();
  });

  test('bounded: 40 calls at once over `connections: 4` open 4 connections, at most 4 requests in flight', async () => {
    sockets.length = 0;
    maxInFlight = 0;
    const transport = createUndiciTransport({ connections: 4 });
    const c = client(transport, base(), 'sk_test_abcdef');
    await Promise.all(Array.from({ length: 40 }, () => c.listDesigns()));
    expect(sockets).toHaveLength(4);
    expect(maxInFlight).toBe(4);
    await transport.close();
  });
});

test("undici's connect timeout is a TIMEOUT, like its headers and body timeouts", () => {
  expect(classifyNetworkError(new undiciErrors.ConnectTimeoutError())).toBe('TIMEOUT');
  expect(classifyNetworkError(new undiciErrors.HeadersTimeoutError())).toBe('TIMEOUT');
  expect(classifyNetworkError(new undiciErrors.BodyTimeoutError())).toBe('TIMEOUT');
  expect(classifyNetworkError(new undiciErrors.SocketError('other side closed'))).toBe('NETWORK_ERROR');
});
