// The packed SDK as a user gets it: `npm pack` in shared/, installed from the tarball into an
// empty folder (its dependencies from the registry), then used from plain Node (require and
// import) and through its `certsvc` bin against a sandbox in this process.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ensureNode, ensureNode22 } from '../zapier/support/node22';
import { SHARED, ensureBuilt } from './built';

const ROOT = path.resolve(__dirname, '../..');

const run = promisify(execFile);
const pkg = JSON.parse(fs.readFileSync(path.join(SHARED, 'package.json'), 'utf8'));

let sb: Sandbox;
let dir: string;
let app: string;
let packed: { filename: string; files: Array<{ path: string }> };

beforeAll(async () => {
  await ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: SHARED });
  [packed] = JSON.parse(stdout);
  app = path.join(dir, 'app');
  fs.mkdirSync(app);
  await run('npm', ['install', path.join(dir, packed.filename), '--no-audit', '--no-fund', '--prefer-offline'], { cwd: app, timeout: 240_000 });
  sb = await createSandbox({ rateLimit: false });
}, 300_000);
afterAll(async () => {
  await sb?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs Node in the app folder, asynchronously so this process keeps serving the sandbox. */
const node = (args: string[], env: Record<string, string> = {}) => run(process.execPath, args, { cwd: app, env: { PATH: process.env.PATH, ...env } });

test('the tarball ships dist, the ESM entries, README, LICENSE and CHANGELOG, and no sources', () => {
  const files = packed.files.map((f) => f.path);
  expect(files.filter((f) => !f.startsWith('dist/')).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'esm/core.mjs', 'esm/index.mjs', 'package.json']);
  for (const f of ['dist/standalone.js', 'dist/standalone.d.ts', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/receivers/index.js', 'dist/undici-transport.js']) expect(files).toContain(f);
  expect(pkg.private).toBeUndefined();
  expect(pkg.engines.node).toMatch(/^>=20/);
  expect(pkg.bin).toEqual({ certsvc: 'dist/cli/main.js' });
});

test('installed into an empty folder, it brings only its own dependencies', () => {
  const installed = fs.readdirSync(path.join(app, 'node_modules')).filter((n) => !n.startsWith('.')).sort();
  expect(installed).toEqual(['@certificate-service', ...Object.keys(pkg.dependencies)].sort());
  expect(fs.readdirSync(path.join(app, 'node_modules/@certificate-service'))).toEqual(['sdk']);
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
  const { stdout } = await node(['-e', script], { BASE_URL: sb.baseUrl, API_KEY: sb.apiKey });
  const out = JSON.parse(stdout);
  expect(out.certificateId).toMatch(/^CERT-\d{4}-\d{6}-\d{4}$/);
  expect(out.notFound).toBe('NOT_FOUND');
  // It exists on the service, in that batch.
  const res = await fetch(`${sb.baseUrl}/certificates/${out.certificateId}`, { headers: { Authorization: `Bearer ${sb.apiKey}` } });
  expect(await res.json()).toMatchObject({ certificateId: out.certificateId, batchId: out.batchId, name: 'Ada Lovelace' });
}, 60_000);

test.each([
  ['20.18.1', "the engines floor (undici 7's)", () => ensureNode('20.18.1')],
  ['22', "Zapier's runtime", ensureNode22],
])('it runs on Node %s, %s: require, import and the bin', async (version, _why, install) => {
  const bin = await install();
  const env = { BASE_URL: sb.baseUrl, API_KEY: sb.apiKey, CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey };
  const script = `require('@certificate-service/sdk').createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY }).auth().then((w) => console.log(JSON.stringify({ w, v: process.version })))`;
  const cjs = JSON.parse((await run(bin, ['-e', script], { cwd: app, env })).stdout);
  expect(cjs).toEqual({ w: sb.workspace, v: expect.stringMatching(new RegExp(`^v${version.replace(/\./g, '\\.')}`)) });
  const esm = await run(bin, ['--input-type=module', '-e', `import { createWebHandler } from '@certificate-service/sdk'; console.log(typeof createWebHandler)`], { cwd: app, env });
  expect(esm.stdout.trim()).toBe('function');
  const cli = await run(bin, [path.join(app, 'node_modules/.bin/certsvc'), 'auth'], { cwd: app, env });
  expect(JSON.parse(cli.stdout)).toEqual(sb.workspace);
}, 300_000);

test('import works too (ESM), sharing one copy of the classes with require', async () => {
  const script = `
    import { createClient, createWebHandler, signPayload, CertificateServiceError } from '@certificate-service/sdk';
    import { verifyDelivery } from '@certificate-service/sdk/core';
    import { createRequire } from 'node:module';
    const cjs = createRequire(import.meta.url)('@certificate-service/sdk');
    const me = await createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY }).auth();
    const body = JSON.stringify({ id: 'whe_1', type: 'certificate.issued', createdAt: 'x', data: {} });
    const event = verifyDelivery(body, signPayload('wh_sec_abcdefgh', body), 'wh_sec_abcdefgh');
    console.log(JSON.stringify({ me, type: event.type, web: typeof createWebHandler, same: cjs.CertificateServiceError === CertificateServiceError }));`;
  const { stdout } = await node(['--input-type=module', '-e', script], { BASE_URL: sb.baseUrl, API_KEY: sb.apiKey });
  expect(JSON.parse(stdout)).toEqual({ me: sb.workspace, type: 'certificate.issued', web: 'function', same: true });
}, 60_000);

test('the certsvc bin runs from node_modules/.bin', async () => {
  const { stdout } = await node([path.join(app, 'node_modules/.bin/certsvc'), 'auth'], { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: sb.apiKey });
  expect(JSON.parse(stdout)).toEqual(sb.workspace);
  const version = await node([path.join(app, 'node_modules/.bin/certsvc'), '--version']);
  expect(version.stdout.trim()).toBe(pkg.version);
}, 60_000);

test("the README's issue example runs as written", async () => {
  const readme = fs.readFileSync(path.join(SHARED, 'README.md'), 'utf8');
  const example = readme.split('### Issue certificates')[1].split('```js\n')[1].split('```')[0];
  const learners = [
    { name: 'Ada Lovelace', email: 'ada@example.com', score: 97 },
    { name: 'Alan Turing', email: 'alan@example.com', score: 95 },
  ];
  const file = path.join(app, 'readme-example.mjs');
  fs.writeFileSync(file, `const learners = ${JSON.stringify(learners)};\n${example}`);
  const ws = sb.controls.createWorkspace();
  const { stdout, stderr } = await node([file], { CERTSVC_BASE_URL: sb.baseUrl, CERTSVC_API_KEY: ws.apiKey });
  expect(stderr).toBe('');
  expect(stdout.trim().split('\n')).toEqual([
    expect.stringMatching(/^ada@example.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
    expect.stringMatching(/^alan@example.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
  ]);
  expect(sb.controls.quota(ws.workspaceId).used).toBe(2);
}, 60_000);

test('its types resolve through the exports map for TypeScript ESM and CommonJS consumers (nodenext)', async () => {
  fs.writeFileSync(
    path.join(app, 'check.mts'),
    `import { createClient, createWebHandler, type WebhookEvent } from '@certificate-service/sdk';
import { verifyDelivery, type ItemOutcome } from '@certificate-service/sdk/core';
const client = createClient({ baseUrl: 'https://x.test', apiKey: 'k' });
const handler: (request: Request) => Promise<Response> = createWebHandler({ secret: 's', onEvent: (event: WebhookEvent) => void event.type });
const outcomes: ItemOutcome[] = await client.issueMany([], { skipExisting: true });
// @ts-expect-error apiKey is required (were the types missing, this line would not be an error)
createClient({ baseUrl: 'https://x.test' });
export { handler, outcomes, verifyDelivery };
`,
  );
  fs.writeFileSync(
    path.join(app, 'check.cts'),
    `import { createExpressHandler, memoryStore } from '@certificate-service/sdk';
// @ts-expect-error claim takes a delivery id
memoryStore().claim(42);
export = createExpressHandler;
`,
  );
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules/@types'), 'check.mts', 'check.cts'];
  const result = await run(process.execPath, [tsc, ...args], { cwd: app }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
  expect(result).toEqual({ code: 0, out: '' });
}, 60_000);
