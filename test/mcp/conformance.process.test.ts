// The official conformance suite (@modelcontextprotocol/conformance, pinned) against the built
// bin over streamable HTTP: every server scenario that applies to this server, each with an
// empty expected-failures list. The suite sends no bearer token, so a small proxy here adds it
// (and maps its own Host and Origin to the server's, leaving any other Host as sent, so the
// DNS-rebinding scenario still meets the server's guard). Scenarios that need the suite's own
// fixture tools, resources or prompts do not apply (the MCP README lists them, and why).
// Takes about 20 s; left out of test:unit.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { MCP, ensureBuilt } from '../support/built';

jest.setTimeout(180_000);
const ROOT = path.resolve(__dirname, '../..');
const SUITE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const TOKEN = 'conformance-token-0123456789abcdef';

const APPLIES = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

let server: ChildProcess;
let proxy: http.Server;
let url: string;
let work: string;
beforeAll(async () => {
  await ensureBuilt();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-conformance-'));
  server = spawn(process.execPath, [MCP, '--http', '--port', '0'], { env: { PATH: process.env.PATH, CERTSVC_MCP_TOKEN: TOKEN, CERTSVC_BASE_URL: 'http://127.0.0.1:9/api/v1', CERTSVC_API_KEY: 'sk_live_conformance_0000000', CERTSVC_STATE_DIR: work }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const target = new URL(await new Promise<string>((resolve, reject) => {
    server.stderr!.on('data', (c) => {
      stderr += c;
      const m = /listening on (\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    server.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  }));
  proxy = http.createServer((req, res) => {
    const own = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const headers = { ...req.headers, authorization: `Bearer ${TOKEN}` };
    if (headers.host === own || headers.host === own.replace('127.0.0.1', 'localhost')) headers.host = target.host;
    if (headers.origin === `http://${own}`) headers.origin = `http://${target.host}`;
    const forward = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
}, 120_000);
afterAll(async () => {
  proxy?.closeAllConnections();
  proxy?.close();
  server?.kill('SIGTERM');
});

test.each(APPLIES)('conformance scenario %s passes with no expected failures', async (scenario) => {
  const baseline = path.join(work, 'expected-failures.yaml');
  fs.writeFileSync(baseline, 'server: []\n');
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) =>
    execFile(process.execPath, [SUITE, 'server', '--url', url, '--scenario', scenario, '--expected-failures', baseline, '-o', path.join(work, scenario)], { timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    ),
  );
  // Every check the scenario made, from its own report: none may be a failure (warnings are advice).
  const reports = fs.readdirSync(path.join(work, scenario)).map((d) => JSON.parse(fs.readFileSync(path.join(work, scenario, d, 'checks.json'), 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>);
  const checks = reports.flat();
  expect(checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
  expect({ scenario, code, failures: checks.filter((c) => c.status === 'FAILURE' || c.status === 'ERROR') }).toEqual({ scenario, code: 0, failures: [] });
  if (code !== 0) throw new Error(output);
});
