// A stub of the service written for the issue tests: a real HTTP server on port 0 that issues
// whatever it is sent. It does NOT enforce the design (an empty required variable is issued as
// it is) and does NOT refuse a second certificate for the same email, so a test sees exactly
// what the connectors send. A bulk call can be held at the service (`holdBulkMs`): the
// certificates land when it answers, as with a slow service.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Recipient } from '@certificate-service/sdk/core';
import { recipientFixture } from '../support/recipient';

export interface StubDesign {
  id: string;
  variables?: unknown;
}

export interface StubRequest {
  method: string;
  path: string;
  body?: unknown;
}

export interface StubService {
  baseUrl: string;
  requests: StubRequest[];
  /** The certificates issued, by batch id, in the order they landed. */
  issued: Map<string, Recipient[]>;
  holdBulkMs: number;
  /** The next bulk call lands its certificates and answers a body no reader knows (its outcome: unknown). */
  garbleNextBulk: boolean;
  close(): Promise<void>;
}

export async function startStub(options: { batches: Record<string, string>; designs: StubDesign[]; holdBulkMs?: number }): Promise<StubService> {
  const issued = new Map<string, Recipient[]>();
  const requests: StubRequest[] = [];
  let n = 0;
  const certificate = (batchId: string, r: { name: string; email: string; data?: Record<string, string> }): Recipient => {
    n++;
    return recipientFixture(n, { id: `rec_${n}`, batchId, name: r.name, email: r.email, data: r.data ?? {} });
  };
  const land = (batchId: string, list: Recipient[]) => issued.set(batchId, [...(issued.get(batchId) ?? []), ...list]);

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const path = url.pathname.replace(/^\/api\/v1/, '');
      const body = raw ? JSON.parse(raw) : undefined;
      requests.push({ method: req.method ?? '', path: path + url.search, body });
      const send = (status: number, answer: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      };
      let m: RegExpMatchArray | null;
      if (req.method === 'GET' && path === '/designs') return send(200, { data: options.designs, nextCursor: null, hasMore: false });
      if ((m = path.match(/^\/batches\/([^/]+)$/)) && req.method === 'GET') {
        const designId = options.batches[m[1]];
        return designId ? send(200, { id: m[1], title: m[1], designId, status: 'active' }) : send(404, { error: 'NOT_FOUND', message: 'No such batch.' });
      }
      if ((m = path.match(/^\/batches\/([^/]+)\/recipients$/)) && req.method === 'GET') {
        const all = issued.get(m[1]) ?? [];
        const from = Number(url.searchParams.get('cursor') ?? 0);
        const limit = Number(url.searchParams.get('limit') ?? 100);
        const next = from + limit < all.length ? String(from + limit) : null;
        return send(200, { data: all.slice(from, from + limit), nextCursor: next, hasMore: next !== null });
      }
      if ((m = path.match(/^\/batches\/([^/]+)\/recipients$/)) && req.method === 'POST') {
        const cert = certificate(m[1], body);
        land(m[1], [cert]);
        return send(201, cert);
      }
      if ((m = path.match(/^\/batches\/([^/]+)\/recipients\/bulk$/)) && req.method === 'POST') {
        const batchId = m[1];
        if (stub.holdBulkMs > 0) await new Promise((r) => setTimeout(r, stub.holdBulkMs));
        const certs = (body.recipients as Array<{ name: string; email: string; data?: Record<string, string> }>).map((r) => certificate(batchId, r));
        land(batchId, certs);
        if (stub.garbleNextBulk) {
          stub.garbleNextBulk = false;
          return send(200, { accepted: true });
        }
        return send(201, { data: certs });
      }
      send(404, { error: 'NOT_FOUND', message: `stub: no route ${req.method} ${path}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stub: StubService = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    issued,
    holdBulkMs: options.holdBulkMs ?? 0,
    garbleNextBulk: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}

/** The emails a stub was sent in issue calls (single and bulk). */
export function sentEmails(stub: StubService): string[] {
  return stub.requests.filter((r) => r.method === 'POST').flatMap((r) => ((r.body as { recipients?: Array<{ email: string }> }).recipients ?? [r.body as { email: string }]).map((x) => x.email));
}

/** A design with a required `course` and an optional `score`, in the sandbox's shape. */
export const DESIGN_REQUIRED: StubDesign = { id: 'design_req', variables: [{ name: 'course', label: 'Course', required: true }, { name: 'score', required: false }] };
/** A design that lists no variables (as the sandbox's design_modern). */
export const DESIGN_NONE: StubDesign = { id: 'design_none' };
/** A design whose variables the core cannot read. */
export const DESIGN_UNREADABLE: StubDesign = { id: 'design_bad', variables: 42 };
