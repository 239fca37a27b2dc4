// The three packages under shared/ as users get them: `npm pack`, installed from the tarballs
// into empty folders (their dependencies from the registry; the SDK from its tarball, since
// nothing is published yet), then used as their READMEs say:
//   sdk:     require, import, types (nodenext), the README's issue example, on its engines floor and Node 22;
//   cli:     `certsvc --help`, and an issue against a sandbox in this process;
//   sandbox: `certsvc-sandbox` prints its URL and key; the README's jest test passes, written
//            into an empty project, with the packed SDK, and leaves no handle open;
//   mcp:     `certsvc-mcp` starts over stdio and the official MCP client lists its tools and
//            issues against a sandbox in this process.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ensureNode, ensureNode22 } from '../zapier/support/node22';
import { PACKAGES, ensureBuilt } from '../support/built';
import { until } from '../support/until';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const manifest = (name: keyof typeof PACKAGES) => JSON.parse(fs.readFileSync(path.join(PACKAGES[name], 'package.json'), 'utf8'));
const pkg = manifest('sdk');
/** The oldest Node the packages support: the SDK's engines floor (`>=X.Y.Z`). */
const FLOOR = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1] ?? 'engines.node is not >=X.Y.Z';

let sb: Sandbox;
let dir: string;
const packed: Record<string, { filename: string; files: Array<{ path: string }> }> = {};
const apps = { sdk: '', cli: '', sandbox: '', mcp: '' };

/** An empty project with these tarballs installed. */
async function project(name: keyof typeof apps, tarballs: string[]): Promise<string> {
  const folder = path.join(dir, `${name}-app`);
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: `try-${name}`, private: true }));
  await run('npm', ['install', ...tarballs.map((t) => path.join(dir, packed[t].filename)), '--no-audit', '--no-fund', '--prefer-offline'], { cwd: folder, timeout: 240_000 });
  return folder;
}

beforeAll(async () => {
  await ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-pack-'));
  for (const name of Object.keys(PACKAGES) as Array<keyof typeof PACKAGES>) {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGES[name] });
    [packed[name]] = JSON.parse(stdout);
  }
  [apps.sdk, apps.cli, apps.sandbox, apps.mcp] = await Promise.all([project('sdk', ['sdk']), project('cli', ['sdk', 'cli']), project('sandbox', ['sdk', 'sandbox']), project('mcp', ['sdk', 'mcp'])]);
  sb = await createSandbox({ rateLimit: false });
}, 400_000);
afterAll(async () => {
  await sb?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs Node in a project folder, asynchronously so this process keeps serving the sandbox. */
const node = (app: string, args: string[], env: Record<string, string> = {}) => run(process.execPath, args, { cwd: app, env: { PATH: process.env.PATH, ...env } });
const installed = (app: string) => fs.readdirSync(path.join(app, 'node_modules')).filter((n) => !n.startsWith('.')).sort();

describe('@certificate-service/sdk', () => {
  test('the tarball ships dist, the ESM entries, README, LICENSE and CHANGELOG, and no sources, CLI or bin', () => {
    const files = packed.sdk.files.map((f) => f.path);
    expect(files.filter((f) => !f.startsWith('dist/')).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'esm/core.mjs', 'esm/index.mjs', 'package.json']);
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/core.js', 'dist/core.d.ts', 'dist/receivers/index.js', 'dist/undici-transport.js']) expect(files).toContain(f);
    expect(files.filter((f) => f.startsWith('dist/cli/'))).toEqual([]);
    expect(pkg.private).toBeUndefined();
    expect(pkg.engines.node).toMatch(/^>=22\.\d+\.\d+$/); // Zapier runs Node 22; Node 20 left support
  });

  test('the four packages declare one engines floor, the SDK\'s', () => {
    expect(Object.fromEntries(Object.keys(PACKAGES).map((name) => [name, manifest(name as keyof typeof PACKAGES).engines.node]))).toEqual({ sdk: `>=${FLOOR}`, sandbox: `>=${FLOOR}`, cli: `>=${FLOOR}`, mcp: `>=${FLOOR}` });
  });

  test('its only runtime dependency is undici, and an empty project gets nothing else', () => {
    expect(Object.keys(pkg.dependencies)).toEqual(['undici']);
    expect(installed(apps.sdk)).toEqual(['@certificate-service', 'undici']);
    expect(fs.readdirSync(path.join(apps.sdk, 'node_modules/@certificate-service'))).toEqual(['sdk']);
  });

  test('it installs no command: certsvc is @certificate-service/cli\'s', () => {
    expect(pkg.bin).toBeUndefined();
    expect(fs.existsSync(path.join(apps.sdk, 'node_modules/.bin/certsvc'))).toBe(false);
  });

  test('require(pkg).createClient({ baseUrl, apiKey }) issues a certificate from plain Node', async () => {
    const script = `
      const { createClient, CertificateServiceError } = require('@certificate-service/sdk');
      (async () => {
        const client = createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
        const batch = await client.createBatch({ title: 'From the tarball', designId: 'design_classic' });
        const cert = await client.issueCertificate(batch.id, { name: 'Ada Lovelace', email: 'ada@example.com', data: { score: 97 } });
        const err = await client.getCertificate('CERT-0000-000000-0000').catch((e) => e);
        console.log(JSON.stringify({ batchId: batch.id, certificateId: cert.certificateId, notFound: err instanceof CertificateServiceError && err.code }));
      })();`;
    const out = JSON.parse((await node(apps.sdk, ['-e', script], { BASE_URL: sb.baseUrl, API_KEY: sb.apiKey })).stdout);
    expect(out.certificateId).toMatch(/^CERT-\d{4}-\d{6}-\d{4}$/);
    expect(out.notFound).toBe('NOT_FOUND');
    const res = await fetch(`${sb.baseUrl}/certificates/${out.certificateId}`, { headers: { Authorization: `Bearer ${sb.apiKey}` } });
    expect(await res.json()).toMatchObject({ certificateId: out.certificateId, batchId: out.batchId, name: 'Ada Lovelace' });
  }, 60_000);

  test.each([
    [FLOOR, 'the engines floor', () => ensureNode(FLOOR)],
    ['22', "Zapier's runtime", ensureNode22],
  ])('it runs on Node %s, %s: require and import', async (version, _why, install) => {
    const bin = await install();
    const env = { BASE_URL: sb.baseUrl, API_KEY: sb.apiKey };
    const script = `require('@certificate-service/sdk').createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY }).auth().then((w) => console.log(JSON.stringify({ w, v: process.version })))`;
    const cjs = JSON.parse((await run(bin, ['-e', script], { cwd: apps.sdk, env })).stdout);
    expect(cjs).toEqual({ w: sb.workspace, v: expect.stringMatching(new RegExp(`^v${version.replace(/\./g, '\\.')}`)) });
    const esm = await run(bin, ['--input-type=module', '-e', `import { createWebHandler } from '@certificate-service/sdk'; console.log(typeof createWebHandler)`], { cwd: apps.sdk, env });
    expect(esm.stdout.trim()).toBe('function');
  }, 300_000);

  test('import works too (ESM), sharing one copy of the classes with require', async () => {
    const script = `
      import { createClient, createWebHandler, signPayload, CertificateServiceError } from '@certificate-service/sdk';
      import { verifyDelivery } from '@certificate-service/sdk/core';
      import { createRequire } from 'node:module';
      const cjs = createRequire(import.meta.url)('@certificate-service/sdk');
      const me = await createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY }).auth();
      const body = JSON.stringify({ id: 'whe_1', type: 'certificate.issued', createdAt: 'x', data: { id: 'rec_1' } });
      const event = verifyDelivery(body, signPayload('wh_sec_abcdefgh', body), 'wh_sec_abcdefgh');
      console.log(JSON.stringify({ me, type: event.type, web: typeof createWebHandler, same: cjs.CertificateServiceError === CertificateServiceError }));`;
    const { stdout } = await node(apps.sdk, ['--input-type=module', '-e', script], { BASE_URL: sb.baseUrl, API_KEY: sb.apiKey });
    expect(JSON.parse(stdout)).toEqual({ me: sb.workspace, type: 'certificate.issued', web: 'function', same: true });
  }, 60_000);

  test("the README's issue example runs as written", async () => {
    const readme = fs.readFileSync(path.join(PACKAGES.sdk, 'README.md'), 'utf8');
    const example = readme.split('### Issue certificates')[1].split('```js\n')[1].split('```')[0];
    // The example defines its own learners (it runs as pasted).
    const file = path.join(apps.sdk, 'readme-example.mjs');
    fs.writeFileSync(file, example);
    const ws = sb.controls.createWorkspace();
    const { stdout, stderr } = await node(apps.sdk, [file], { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: ws.apiKey });
    expect(stderr).toBe('');
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^ada@example.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
      expect.stringMatching(/^alan@example.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
      '2 issued, 0 already issued, 0 not issued',
    ]);
    expect(sb.controls.quota(ws.workspaceId).used).toBe(2);
  }, 60_000);

  test('its types resolve through the exports map for TypeScript ESM and CommonJS consumers (nodenext)', async () => {
    fs.writeFileSync(
      path.join(apps.sdk, 'check.mts'),
      `import { createClient, createWebHandler, type WebhookEvent } from '@certificate-service/sdk';
import { verifyDelivery, type IssueOutcome } from '@certificate-service/sdk/core';
const client = createClient({ baseUrl: 'https://x.test', apiKey: 'k' });
const handler: (request: Request) => Promise<Response> = createWebHandler({ secret: 's', onEvent: (event: WebhookEvent) => void event.type });
const outcomes: IssueOutcome[] = await client.issueMany([], { skipExisting: true });
// @ts-expect-error apiKey is required (were the types missing, this line would not be an error)
createClient({ baseUrl: 'https://x.test' });
export { handler, outcomes, verifyDelivery };
`,
    );
    fs.writeFileSync(
      path.join(apps.sdk, 'check.cts'),
      `import { createExpressHandler, memoryStore } from '@certificate-service/sdk';
// @ts-expect-error claim takes a delivery id
memoryStore().claim(42);
export = createExpressHandler;
`,
    );
    expect(await strictTsc(apps.sdk, ['check.mts', 'check.cts'])).toEqual({ code: 0, out: '' });
  }, 60_000);

  test("every code example in the SDK's and the sandbox's READMEs and the SDK's design notes type-checks under strict TypeScript against the packed types", async () => {
    // JS blocks are checked as JavaScript (checkJs), TS blocks as TypeScript; names an example
    // takes from the reader's own code (their learners, their Express app) are declared here.
    // docs/design/sdk.md holds the shared stores' example.
    const sources = [path.join(PACKAGES.sdk, 'README.md'), path.join(ROOT, 'docs/design/sdk.md'), path.join(PACKAGES.sandbox, 'README.md')];
    const perFile = sources.map((file) => [...fs.readFileSync(file, 'utf8').matchAll(/```(js|ts)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] })));
    expect(perFile.map((b) => b.length > 0)).toEqual(sources.map(() => true)); // each file's examples were found
    const blocks = perFile.flat();
    const folder = path.join(apps.sandbox, 'readme-examples');
    fs.mkdirSync(folder);
    fs.writeFileSync(
      path.join(folder, 'reader.d.ts'),
      `declare const learners: Array<{ name: string; email: string; score: number }>;
declare function markViewed(certificateId: string): Promise<void>;
declare const app: any; // the reader's Express, Fastify or Hono app
declare const express: any;
declare const secret: string;
declare const onEvent: (event: import('@certificate-service/sdk').WebhookEvent) => void;
declare const redis: { sendCommand(args: string[]): Promise<unknown> }; // the reader's node-redis client, the part the store uses
declare const pool: { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> }; // their pg Pool
declare module 'hono' {
  // A stand-in for the reader's Hono: the part the example uses.
  export class Hono {
    post(path: string, handler: (c: { req: { raw: Request } }) => Response | Promise<Response>): void;
  }
}
`,
    );
    const files = blocks.map((b, i) => {
      // A block whose first line names its file (`// recover.mts`) is checked as that kind of module.
      const named = /^\/\/ [\w.-]+\.([mc]?[jt]s)\b/.exec(b.code)?.[1];
      const module = named ? named.startsWith('m') || (named === b.lang && /^\s*(import|export) /m.test(b.code)) : /^\s*(import|export) /m.test(b.code);
      const name = `example-${i}.${b.lang === 'ts' ? (module ? 'mts' : 'cts') : module ? 'mjs' : 'cjs'}`;
      fs.writeFileSync(path.join(folder, name), b.code);
      return name;
    });
    // TypeScript blocks under full `strict`; JavaScript ones under `strict` but for noImplicitAny
    // (untyped parameters are how JavaScript is written), so a `string | undefined` passed where
    // a string is required (TS2322) fails either way.
    const ts = await strictTsc(folder, ['--types', 'node,jest', 'reader.d.ts', ...files.filter((f) => /\.[mc]ts$/.test(f))]);
    const js = await strictTsc(folder, ['--allowJs', '--checkJs', '--noImplicitAny', 'false', '--types', 'node,jest', 'reader.d.ts', ...files.filter((f) => /\.[mc]js$/.test(f))]);
    expect({ ts, js }).toEqual({ ts: { code: 0, out: '' }, js: { code: 0, out: '' } });
  }, 120_000);
});

/** `tsc --strict --noEmit` with nodenext resolution in a project folder: exit code and output. */
async function strictTsc(cwd: string, files: string[]): Promise<{ code: number; out: string }> {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const types = files.includes('--types') ? [] : ['--types', 'node'];
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', ...types, '--typeRoots', path.join(ROOT, 'node_modules/@types'), ...files];
  return run(process.execPath, [tsc, ...args], { cwd }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
}

describe('@certificate-service/cli', () => {
  const certsvc = (args: string[], env: Record<string, string> = {}) => node(apps.cli, [path.join(apps.cli, 'node_modules/.bin/certsvc'), ...args], env);

  test('the tarball is its dist; it depends on the SDK and its own three, and no more', () => {
    const cli = manifest('cli');
    expect(packed.cli.files.map((f) => f.path).filter((f) => !f.startsWith('dist/')).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
    expect(Object.keys(cli.dependencies).sort()).toEqual(['@certificate-service/sdk', 'commander', 'csv-parse', 'csv-stringify']);
    expect(cli.dependencies['@certificate-service/sdk']).toBe(`^${pkg.version}`);
    expect(cli.bin).toEqual({ certsvc: 'dist/main.js' });
  });

  test('certsvc --help and --version', async () => {
    const help = await certsvc(['--help']);
    expect(help.stdout).toMatch(/Usage: certsvc/);
    expect(help.stdout).toMatch(/issue/);
    expect((await certsvc(['--version'])).stdout.trim()).toBe(manifest('cli').version);
  }, 60_000);

  test('certsvc issue: a CSV issued into a batch of the sandbox, then skipped on the second run', async () => {
    const ws = sb.controls.createWorkspace();
    const env = { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: ws.apiKey };
    const batch = JSON.parse((await certsvc(['batches', 'create', '--title', 'From the CLI tarball', '--design', 'design_classic'], env)).stdout);
    const csv = path.join(apps.cli, 'learners.csv');
    fs.writeFileSync(csv, 'name,email,course\nAda Lovelace,ada@example.com,Math\nAlan Turing,alan@example.com,Logic\n');
    const first = await certsvc(['issue', '--batch', batch.id, '--csv', csv], env);
    expect(JSON.parse(first.stdout.trim().split('\n').pop()!)).toMatchObject({ issued: 2, skipped: 0, failed: 0 });
    const again = await certsvc(['issue', '--batch', batch.id, '--csv', csv], env);
    expect(JSON.parse(again.stdout.trim().split('\n').pop()!)).toMatchObject({ issued: 0, skipped: 2 });
    expect(sb.controls.quota(ws.workspaceId).used).toBe(2);
  }, 60_000);

  test('the bin runs on Node 22', async () => {
    const bin = await ensureNode22();
    const { stdout } = await run(bin, [path.join(apps.cli, 'node_modules/.bin/certsvc'), 'auth'], { cwd: apps.cli, env: { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey } });
    expect(JSON.parse(stdout)).toEqual(sb.workspace);
  }, 300_000);
});

describe('@certificate-service/sandbox', () => {
  test('the tarball is its dist; its one dependency is the SDK', () => {
    const manifestSb = manifest('sandbox');
    expect(packed.sandbox.files.map((f) => f.path).filter((f) => !f.startsWith('dist/')).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
    expect(manifestSb.dependencies).toEqual({ '@certificate-service/sdk': `^${pkg.version}` });
    expect(installed(apps.sandbox)).toEqual(['@certificate-service', 'undici']);
  });

  test('certsvc-sandbox starts on a port, prints the base URL and the key, and --deliver-to subscribes a receiver', async () => {
    const received: string[] = [];
    const http = await import('node:http');
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => (received.push(body), res.end()));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const to = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
    const child = spawn(process.execPath, [path.join(apps.sandbox, 'node_modules/.bin/certsvc-sandbox'), '--port=0', '--time-scale', '0.001', '--deliver-to', to], { cwd: apps.sandbox });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c) => ((out += c), /secret {3}: wh_sec_/.test(out) && resolve()));
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const baseUrl = /base URL : (\S+)/.exec(out)![1];
      const apiKey = /API key {2}: (\S+)/.exec(out)![1];
      expect(out).toMatch(/delivery retries and the rotation grace run at 0\.001× their real time/);
      const auth = await fetch(`${baseUrl}/auth`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}` } });
      expect(auth.status).toBe(200);
      const batch = (await (await fetch(`${baseUrl}/batches`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: "T", designId: "design_classic" }) })).json()) as { id: string };
      await fetch(`${baseUrl}/batches/${batch.id}/recipients`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'A', email: 'a@example.com' }) });
      await until('the delivery at the receiver', () => received.length > 0, 10_000, 20);
      expect(JSON.parse(received[0])).toMatchObject({ type: 'certificate.issued', data: { email: 'a@example.com' } });
    } finally {
      child.kill();
      receiver.close();
    }
  }, 60_000);

  test('a bad flag exits 2 and names it', async () => {
    const bad = await node(apps.sandbox, [path.join(apps.sandbox, 'node_modules/.bin/certsvc-sandbox'), '--port', 'forty']).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--port takes a number (got "forty")') });
  });

  test("the README's app test passes under jest in an empty project, with the packed SDK, and leaves no handle open", async () => {
    const readme = fs.readFileSync(path.join(PACKAGES.sandbox, 'README.md'), 'utf8');
    const example = readme.split('## In your tests')[1].split('```js\n')[1].split('```')[0];
    fs.writeFileSync(path.join(apps.sandbox, 'certificates.test.js'), example);
    const jest = path.join(ROOT, 'node_modules/jest/bin/jest.js');
    const config = JSON.stringify({ rootDir: apps.sandbox, testEnvironment: 'node', transform: {} });
    // No --forceExit: a timer or socket left behind would keep jest from exiting (the timeout fails it).
    const result = await run(process.execPath, [jest, '--config', config, '--ci', '--detectOpenHandles', '--json'], { cwd: apps.sandbox, timeout: 120_000 }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    expect(result.stderr).not.toMatch(/open handle|did not exit/i);
    const summary = JSON.parse(result.stdout);
    expect({ code: result.code, passed: summary.numPassedTests, failed: summary.numFailedTests }).toEqual({ code: 0, passed: 3, failed: 0 });
  }, 180_000);
});

describe('@certificate-service/mcp', () => {
  test('the tarball is its dist and server.json; its dependencies are the SDK, the MCP SDK (1.x for 2025-era clients, the 2.x server for 2026-07-28) and zod, pinned', () => {
    const m = manifest('mcp');
    expect(packed.mcp.files.map((f) => f.path).filter((f) => !f.startsWith('dist/')).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json', 'server.json']);
    expect(m.dependencies).toEqual({ '@certificate-service/sdk': `^${pkg.version}`, '@modelcontextprotocol/sdk': '1.32.2', '@modelcontextprotocol/server': '2.4.0', zod: '3.25.76' });
    const server = JSON.parse(fs.readFileSync(path.join(PACKAGES.mcp, 'server.json'), 'utf8'));
    expect(server).toMatchObject({ name: m.mcpName, version: m.version, packages: [{ identifier: m.name, version: m.version, transport: { type: 'stdio' } }] });
  });

  test('installed into an empty folder, certsvc-mcp starts over stdio: tools/list and an issue against the sandbox', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const ws = sb.controls.createWorkspace();
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(apps.mcp, 'node_modules/.bin/certsvc-mcp')], cwd: apps.mcp, env: { PATH: process.env.PATH ?? '', CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: ws.apiKey }, stderr: 'pipe' });
    const client = new Client({ name: 'pack-test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools).toHaveLength(16);
      const batch = (await client.callTool({ name: 'create_batch', arguments: { title: 'Packed', designId: 'design_classic' } })).structuredContent as { batch: { id: string } };
      const issued = (await client.callTool({ name: 'issue_certificates', arguments: { batchId: batch.batch.id, recipients: [{ name: 'Ada', email: 'ada@example.com' }] } })).structuredContent as { counts: { issued: number } };
      expect(issued.counts.issued).toBe(1);
    } finally {
      await client.close();
    }
    expect(sb.controls.quota(ws.workspaceId).used).toBe(1);
  }, 60_000);
});
