// certsvc against a service that does NOT enforce the design (a stub written here, a tiny HTTP
// server), run in this process from the repository root with a relative path. Its design requires `course`, but it would issue
// a row without one. The CLI reads the design itself: the bad row is never sent; without
// --skip-invalid nothing is sent; with it, the good rows are issued.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { REPO_ROOT, repoTempDir, runCli } from '../support/cli';

jest.setTimeout(60_000);

/** Every recipient the stub was asked to issue, in order. */
const sent: Array<{ name: string; email: string; data?: Record<string, string> }> = [];
let server: http.Server;
let baseUrl: string;
let dir: { abs: string; rel: string };

function answer(req: http.IncomingMessage, body: string): [number, unknown] {
  const url = new URL(req.url!, 'http://stub');
  const route = `${req.method} ${url.pathname}`;
  if (route === 'GET /api/v1/batches/batch_stub') return [200, { id: 'batch_stub', title: 'Stub', designId: 'design_stub', status: 'active' }];
  if (route === 'GET /api/v1/designs') return [200, { data: [{ id: 'design_stub', name: 'Stub', variables: [{ name: 'course', label: 'Course', required: true }] }], nextCursor: null, hasMore: false }];
  if (route === 'GET /api/v1/batches/batch_stub/recipients') return [200, { data: [], nextCursor: null, hasMore: false }];
  if (route === 'POST /api/v1/batches/batch_stub/recipients/bulk') {
    const recipients = (JSON.parse(body) as { recipients: typeof sent }).recipients;
    sent.push(...recipients);
    const now = new Date().toISOString();
    const data = recipients.map((r, i) => {
      const n = sent.length - recipients.length + i + 1;
      return { id: `rec_${n}`, batchId: 'batch_stub', name: r.name, email: r.email, certificateId: `CERT-2026-000001-${String(n).padStart(4, '0')}`, shareToken: `tok${n}`, certUrl: `http://stub/v/tok${n}`, issueDate: now, expiryDate: null, data: r.data ?? {}, emailStatus: 'not_sent', emailSentAt: null, createdAt: now };
    });
    return [201, { data }];
  }
  return [404, { error: { code: 'NOT_FOUND', message: `${route} is not in this stub` } }];
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const [status, json] = answer(req, body);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  dir = repoTempDir('cli-stub-');
  fs.writeFileSync(path.join(dir.abs, 'people.csv'), ['name,email,course', 'Ada,ada@example.com,Safety', 'Bob,bob@example.com,', 'Cy,cy@example.com,Safety'].join('\n'));
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir.abs, { recursive: true, force: true });
});

const certsvc = (args: string[]) => runCli(args, { CERTSVC_BASE_URL: baseUrl, CERTSVC_API_KEY: 'sk_live_stub_key_0000000000000000' }, { cwd: REPO_ROOT });

test('a CSV with one bad row: without --skip-invalid nothing is sent (exit 2); with it the good rows are issued and the bad one never sent (exit 1)', async () => {
  const csv = path.join(dir.rel, 'people.csv');
  const strict = await certsvc(['issue', '--batch', 'batch_stub', '--csv', csv]);
  expect(strict.code).toBe(2);
  expect(strict.stderr).toContain('line 3: "course" is required by the design and is empty');
  expect(sent).toEqual([]);

  const lenient = await certsvc(['issue', '--batch', 'batch_stub', '--csv', csv, '--skip-invalid']);
  expect(lenient.code).toBe(1);
  expect(JSON.parse(lenient.stdout.trim().split('\n').pop()!)).toMatchObject({ issued: 2, invalid: 1, failed: 0 });
  expect(sent.map((r) => r.email)).toEqual(['ada@example.com', 'cy@example.com']);
});
