// A stub Certificate Service written for the MCP process tests: one batch with two
// certificates, a slow list when asked, and a log of every request (method and path), so a
// test can count the writes whatever process or session made them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Stub {
  baseUrl: string;
  requests: string[];
  writes(): string[];
  /** Milliseconds GET /batches takes (a slow call). */
  slowList: number;
  close(): Promise<void>;
}

export async function startStub(): Promise<Stub> {
  const batch = { id: 'b1', title: 'Stub', designId: 'd1', status: 'active' };
  const cert = (i: number) => ({ id: `rec_${i}`, batchId: 'b1', name: `R${i}`, email: `r${i}@example.com`, certificateId: `CERT-2026-000001-000${i}`, shareToken: `tok${i}`, certUrl: `https://v.test/v/tok${i}`, issueDate: '2026-01-01T00:00:00Z', expiryDate: null, data: {}, emailStatus: 'pending', emailSentAt: null, createdAt: '2026-01-01T00:00:00Z' });
  const stub: Stub = {
    baseUrl: '',
    requests: [],
    writes: () => stub.requests.filter((r) => !r.startsWith('GET ')),
    slowList: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      const route = `${req.method} ${new URL(req.url!, 'http://x').pathname.replace('/api/v1', '')}`;
      stub.requests.push(route);
      const send = (status: number, value?: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(value === undefined ? undefined : JSON.stringify(value));
      const m = /^(GET|DELETE) \/batches\/b1\/recipients\/rec_(\d)$/.exec(route);
      if (route === 'GET /batches') return void setTimeout(() => send(200, { data: [batch], nextCursor: null }), stub.slowList);
      if (route === 'GET /batches/b1') return send(200, batch);
      if (route === 'POST /batches/b1/archive') return send(200, { ...batch, status: 'archived' });
      if (m && m[1] === 'GET') return send(200, cert(Number(m[2])));
      if (m && m[1] === 'DELETE') return send(204);
      send(404, { error: 'NOT_FOUND', message: `No route ${route}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  return stub;
}
