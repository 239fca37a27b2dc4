// The official conformance suite (@modelcontextprotocol/conformance, pinned) against the built
// bin over streamable HTTP, once per requirement set it ships (requirements/<revision>.yaml: the
// scenarios a spec revision requires, each run at that revision's wire), with an empty
// expected-failures list. The suite sends no bearer token, so a small proxy here adds it (and
// maps its own Host and Origin to the server's, leaving any other Host as sent, so the
// DNS-rebinding scenario still meets the server's guard).
//
// Many required scenarios call the suite's own fixtures: tools, prompts and resources only its
// reference server has (test_simple_text, test://static-text, …). Which ones is read from what
// the suite sends: the proxy records every request and this server's answer, per scenario (the
// scenario running is the newest result folder the suite has made). A request *misses* when it
// names a tool, prompt or resource this server does not serve and is refused with -32602
// (invalid params), or with -32601 (method not found) for a method of a capability this server
// does not declare (resources/subscribe). A failing check is excused only when
//   - its scenario sent nothing but misses, apart from the handshake and lists: the scenario
//     has nothing of this server's to check; or
//   - the suite itself marks the check untestable and names a fixture its scenario missed
//     (server-stateless's checks that need its diagnostic tools).
// Every other check of every required scenario must pass. The MCP README lists the scenarios
// with an excused check; the last test fails when that list differs from what the runs found.
// Takes about a minute here (2 cores, other suites running); left out of test:unit.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import YAML from 'yaml';
import { MCP, ensureBuilt } from '../support/built';

jest.setTimeout(300_000);
const ROOT = path.resolve(__dirname, '../..');
const PACKAGE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance');
const SUITE = path.join(PACKAGE, 'dist/index.js');
const README = path.join(ROOT, 'shared/mcp/README.md');
const TOKEN = 'conformance-token-0123456789abcdef';
/** The requirement sets the suite ships, by revision. */
const REVISIONS = fs.readdirSync(path.join(PACKAGE, 'requirements')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')).sort();
/** Requests that only set up or list: a scenario of misses and these has nothing of ours to check. */
const SETUP = new Set(['initialize', 'server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'logging/setLevel']);

/** The capability a method needs: -32601 for a declared one is a bug, not a miss. */
const CAPABILITY: Record<string, (c: Record<string, any>) => boolean> = {
  'tools/call': (c) => !!c.tools,
  'prompts/get': (c) => !!c.prompts,
  'resources/read': (c) => !!c.resources,
  'resources/subscribe': (c) => !!c.resources?.subscribe,
  'resources/unsubscribe': (c) => !!c.resources?.subscribe,
  'completion/complete': (c) => !!c.completions,
};

interface Check { id: string; status: string; errorMessage?: string; details?: { untestable?: boolean } }
/** One JSON-RPC request the suite sent, and this server's answer. */
interface Exchange { method: string; target?: string; error?: number }

/** What a request names: a tool, a prompt, a resource (or template) URI. */
function targetOf(method: string, params: Record<string, any> | undefined): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return params?.name;
  if (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe') return params?.uri;
  if (method === 'completion/complete') return params?.ref?.name ?? params?.ref?.uri;
  return undefined;
}

/** The JSON-RPC messages of a body: JSON, or the data lines of an SSE stream. */
function messagesOf(body: string): Array<Record<string, any>> {
  const parse = (text: string) => {
    try {
      return [JSON.parse(text)].flat();
    } catch {
      return [];
    }
  };
  return /^\s*[[{]/.test(body) ? parse(body) : body.split('\n').filter((l) => l.startsWith('data:')).flatMap((l) => parse(l.slice(5)));
}

/** The suite's result folder `server-<scenario>-<ISO time>`: the scenario and when it started. */
const FOLDER = /^server-(.+)-(\d{4}-\d\d-\d\dT[\d-]+Z)$/;

let server: ChildProcess;
let proxy: http.Server;
let url: string;
let work: string;
/** Tool and prompt names and resource URIs this server serves, and what it declares. */
let served: Set<string>;
let capabilities: Record<string, any>;
/** The run being recorded: its result folder, the folders seen so far, the exchanges per scenario. */
let recording: { out: string; seen: Set<string>; current?: string; log: Map<string, Exchange[]> } | undefined;

/** The scenario running now: the newest result folder the suite has made (it makes it before connecting). */
function scenarioNow(): string | undefined {
  const r = recording;
  if (!r) return undefined;
  const fresh = fs.readdirSync(r.out).filter((d) => !r.seen.has(d)).sort((a, b) => (FOLDER.exec(a)?.[2] ?? '').localeCompare(FOLDER.exec(b)?.[2] ?? ''));
  for (const d of fresh) {
    r.seen.add(d);
    r.current = FOLDER.exec(d)?.[1];
  }
  return r.current;
}

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
    const scenario = scenarioNow();
    const own = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const headers = { ...req.headers, authorization: `Bearer ${TOKEN}` };
    if (headers.host === own || headers.host === own.replace('127.0.0.1', 'localhost')) headers.host = target.host;
    if (headers.origin === `http://${own}`) headers.origin = `http://${target.host}`;
    const sent: Buffer[] = [];
    req.on('data', (c: Buffer) => sent.push(c));
    const forward = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const got: Buffer[] = [];
      answer.on('data', (c: Buffer) => got.push(c));
      answer.on('end', () => {
        if (!scenario || !recording) return;
        const answers = messagesOf(Buffer.concat(got).toString('utf8'));
        for (const m of messagesOf(Buffer.concat(sent).toString('utf8'))) {
          if (typeof m.method !== 'string' || m.id === undefined) continue;
          const reply = answers.find((a) => a.id === m.id && ('result' in a || 'error' in a));
          const log = recording.log.get(scenario) ?? [];
          log.push({ method: m.method, target: targetOf(m.method, m.params), error: reply?.error?.code });
          recording.log.set(scenario, log);
        }
      });
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  // What this server serves, asked through the proxy as any client would.
  const client = new Client({ name: 'conformance-served', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  served = new Set([
    ...(await client.listTools()).tools.map((t) => t.name),
    ...(await client.listPrompts()).prompts.map((p) => p.name),
    ...(await client.listResources()).resources.map((r) => r.uri),
    ...(await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
  ]);
  capabilities = client.getServerCapabilities() ?? {};
  await client.close();
}, 120_000);
afterAll(async () => {
  proxy?.closeAllConnections();
  proxy?.close();
  server?.kill('SIGTERM');
});

/** Per revision, what its run found (for the README test). */
const found = new Map<string, { required: number; passed: string[]; byAccident: string[]; doNotApply: string[]; untestable: Array<{ scenario: string; fixtures: string[]; checks: number }> }>();

test('the suite ships the requirement sets of both eras this server serves', () => {
  expect(REVISIONS).toEqual(expect.arrayContaining(['2025-11-25', '2026-07-28']));
});

test.each(REVISIONS)('requirement set %s: every required scenario runs, and passes unless it calls only the suite\'s fixtures', async (revision) => {
  const required = (YAML.parse(fs.readFileSync(path.join(PACKAGE, 'requirements', `${revision}.yaml`), 'utf8')) as { server: string[] }).server;
  expect(required.length).toBeGreaterThan(0);
  const out = path.join(work, revision);
  fs.mkdirSync(out);
  const baseline = path.join(work, `expected-failures-${revision}.yaml`);
  fs.writeFileSync(baseline, 'server: []\n');
  recording = { out, seen: new Set(), log: new Map() };
  const code = await new Promise<number>((resolve) =>
    execFile(process.execPath, [SUITE, 'server', '--url', url, '--requirements', revision, '--expected-failures', baseline, '-o', out], { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }, (error) => resolve(error ? ((error as { code?: number }).code ?? 1) : 0)),
  );
  const log = recording.log;
  recording = undefined;

  // Each required scenario ran once and made checks; read them from the suite's own reports.
  const folders = fs.readdirSync(out).map((d) => ({ scenario: FOLDER.exec(d)?.[1] ?? d, checks: JSON.parse(fs.readFileSync(path.join(out, d, 'checks.json'), 'utf8')) as Check[] }));
  expect(required.map((s) => [s, folders.filter((f) => f.scenario === s).length])).toEqual(required.map((s) => [s, 1]));
  const unexplained: Array<{ scenario: string; id: string; status: string; errorMessage?: string }> = [];
  const result = { required: required.length, passed: [] as string[], byAccident: [] as string[], doNotApply: [] as string[], untestable: [] as Array<{ scenario: string; fixtures: string[]; checks: number }> };
  const verdicts = required.map((scenario) => {
    const checks = folders.find((f) => f.scenario === scenario)!.checks;
    expect({ scenario, checks: checks.length > 0 }).toEqual({ scenario, checks: true });
    const exchanges = log.get(scenario) ?? [];
    const isMiss = (e: Exchange) => e.target !== undefined && !served.has(e.target) && (e.error === -32602 || (e.error === -32601 && !CAPABILITY[e.method]?.(capabilities)));
    const fixtures = [...new Set(exchanges.filter(isMiss).map((e) => e.target!))];
    const onlyMisses = fixtures.length > 0 && exchanges.every((e) => SETUP.has(e.method) || isMiss(e));
    const failing = checks.filter((c) => c.status === 'FAILURE' || c.status === 'ERROR');
    const excused = failing.filter((c) => onlyMisses || (c.details?.untestable === true && fixtures.some((f) => (c.errorMessage ?? '').includes(f))));
    for (const c of failing.filter((c) => !excused.includes(c))) unexplained.push({ scenario, id: c.id, status: c.status, errorMessage: c.errorMessage });
    return { scenario, fixtures, onlyMisses, failing: failing.length, excused };
  });
  expect(unexplained).toEqual([]);
  // The suite's exit code agrees: it fails the run exactly when a required scenario failed.
  expect(code).toBe(verdicts.some((v) => v.failing > 0) ? 1 : 0);

  const fixturesElsewhere = new Set(verdicts.filter((v) => v.onlyMisses && v.failing).flatMap((v) => v.fixtures));
  for (const v of verdicts) {
    if (v.onlyMisses && v.failing) result.doNotApply.push(v.scenario);
    else if (v.excused.length) result.untestable.push({ scenario: v.scenario, fixtures: v.fixtures.filter((f) => v.excused.some((c) => (c.errorMessage ?? '').includes(f))), checks: v.excused.length });
    if (!v.failing) result.passed.push(v.scenario);
    // Passes, but only because the suite accepts a -32602 for a fixture another scenario needs.
    if (!v.failing && v.onlyMisses && v.fixtures.every((f) => fixturesElsewhere.has(f))) result.byAccident.push(v.scenario);
  }
  found.set(revision, result);
});

/** The README's list, as the runs found it. */
function readmeBlock(): string {
  const names = (list: string[]) => list.map((s) => `\`${s}\``).join(', ');
  return REVISIONS.map((revision) => {
    const r = found.get(revision)!;
    const real = r.passed.length - r.byAccident.length;
    return [
      `- **${revision}**: ${real} of ${r.required} required scenarios pass${r.byAccident.length ? `; ${r.byAccident.length} more (${names(r.byAccident)}) pass only because the suite accepts the -32602 for its missing tool` : ''}.`,
      `  Do not apply (${r.doNotApply.length}): ${names(r.doNotApply)}.`,
      ...r.untestable.map((u) => `  \`${u.scenario}\` passes but for ${u.checks} checks the suite cannot make without its ${names(u.fixtures)}.`),
    ].join('\n');
  }).join('\n');
}

test('the MCP README lists the scenarios that do not apply, as the runs found them', () => {
  expect([...found.keys()].sort()).toEqual(REVISIONS);
  const readme = fs.readFileSync(README, 'utf8');
  const listed = /<!-- conformance:start[^>]*-->\n([\s\S]*?)\n<!-- conformance:end -->/.exec(readme)?.[1];
  expect(listed).toBe(readmeBlock());
});
