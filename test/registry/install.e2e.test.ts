/**
 * `npm run test:registry`: the packages installed the way their users install them. A real npm
 * registry (Verdaccio, test/registry/verdaccio.ts) on this machine; every package published to
 * it as a release publishes it (`npm publish --access public -w <package>` at the root, so
 * `prepack` stamps the publisher's identity); then each README's registry lines, read from the
 * README and run as written (test/readme/session.ts, with the substitutions docs/tests.md lists),
 * in an empty folder, with a fresh HOME whose ~/.npmrc names the local registry, a fresh npm
 * cache, and the oldest Node the packages support:
 *   - the SDK's `npm install`, then its issue example against a sandbox;
 *   - the CLI's `npx -p @certificate-service/cli certsvc --help`, and docs/subscriptions.md's
 *     `npx … certsvc subscriptions list` against a sandbox;
 *   - the sandbox's `npm install --save-dev …`, then its `npx certsvc-sandbox` (README "Start it");
 *   - the MCP server as its README configures clients (`npx -y @certificate-service/mcp`), with
 *     the official MCP client, and `certsvc mcp` after the README's `npm install -g` of both;
 *   - the n8n package installed into ~/.n8n/nodes as its README says, loaded by a real n8n
 *     2.41.1 that runs the example workflow against a sandbox.
 * Each install must print no engine, peer or resolution warning.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ensureBuilt } from '../support/built';
import { freePort } from '../support/net';
import { ensureN8nInstalled, startN8n } from '../e2e/n8n/harness';
import { ensurePackageBuilt } from '../e2e/n8n/package-setup';
import { runIssueExample } from '../e2e/n8n/workflows';
import { PLANS } from '../readme/blocks';
import { fences, ROOT, shellBlocks } from '../readme/markdown';
import { expectSuccess, readerEnv as readerEnvOf, runSession, stopServers, useReaderNode, type Session } from '../readme/session';
import { startRegistry, type LocalRegistry } from './verdaccio';

const { NPM_PACKAGES, readPublisher, packageFields } = require('../../release/publisher.js') as {
  NPM_PACKAGES: string[];
  readPublisher(): Record<string, string>;
  packageFields(publisher: Record<string, string>, dir: string): { homepage: string; author: { name: string; email: string } };
};

jest.setTimeout(20 * 60_000);
const run = promisify(execFile);

const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8'));
const NAMES = NPM_PACKAGES.map((dir) => manifest(dir).name as string);

/** The blocks each run pastes, in order (test/readme/blocks.ts plans the ones only this suite runs as `registry`). */
export const REGISTRY_RUNS: Record<string, string[]> = {
  sdk: ['shared/sdk/README.md › For other apps #1'],
  cli: ['shared/cli/README.md › Install #1', 'docs/subscriptions.md › Webhook subscriptions: 20 per workspace'],
  sandbox: ['shared/sandbox/README.md › Install #1', 'shared/sandbox/README.md › Start it'],
  n8n: ['n8n/README.md › Manual installation (self-hosted, queue mode, Docker) #1'],
};

let registry: LocalRegistry;
let sandbox: Sandbox;
let work: string;
let readerNode: string;
const published: Record<string, { stdout: string; stderr: string; seconds: number }> = {};
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  await ensureBuilt();
  ensurePackageBuilt();
  readerNode = await useReaderNode();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-registry-users-'));
  registry = await startRegistry(NAMES);
  // As the release publishes: from the root, one workspace at a time, prepack stamping each.
  // RELEASE_MODE lets n8n's prepublishOnly guard through, as in .github/workflows/publish.yml.
  const env: NodeJS.ProcessEnv = { RELEASE_MODE: 'true', npm_config_userconfig: registry.publisherNpmrc, npm_config_registry: registry.url };
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^npm_/i.test(key)) env[key] ??= value;
  for (const dir of NPM_PACKAGES) {
    const started = Date.now();
    const { stdout, stderr } = await run('npm', ['publish', '--access', 'public', '-w', dir], { cwd: ROOT, env, timeout: 300_000 });
    published[dir] = { stdout, stderr, seconds: (Date.now() - started) / 1000 };
  }
  sandbox = await createSandbox({ rateLimit: false });
}, 20 * 60_000);

afterAll(async () => {
  await sandbox?.close();
  await registry?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

afterEach(async () => {
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve().then(cleanup).catch((e: unknown) => failures.push(e));
  if (failures.length) throw failures[0];
});

/** A fresh HOME whose ~/.npmrc names the local registry, as `npm config set registry …` writes it. */
function readerHome(name: string): string {
  const home = fs.mkdtempSync(path.join(work, `${name}-home-`));
  fs.writeFileSync(path.join(home, '.npmrc'), `registry=${registry.url}\n`);
  return home;
}

/** An empty folder to run the lines in. */
function emptyFolder(name: string): string {
  return fs.mkdtempSync(path.join(work, `${name}-`));
}

/** The environment of the reader's terminal (readerEnv), with its own npm cache and `extra`. */
const withReader = (extra: Record<string, string> = {}) => (env: NodeJS.ProcessEnv, home: string) => ({ ...env, npm_config_cache: path.join(home, '.npm'), ...extra });

/** Runs one registry run's blocks, read from their Markdown files now, in an empty folder. */
async function paste(name: keyof typeof REGISTRY_RUNS, extra: Record<string, string> = {}): Promise<{ s: Session; folder: string }> {
  const all = shellBlocks();
  const blocks = REGISTRY_RUNS[name].map((key) => all.find((b) => b.key === key) ?? fail(`no shell block "${key}" (a README heading changed?)`));
  const folder = emptyFolder(name);
  const s = await runSession(blocks[0].file, blocks, await freePort(), { cwd: folder, home: readerHome(name), env: withReader(extra) });
  cleanups.push(async () => {
    const left = await stopServers(s);
    expect(left.flat()).toEqual([]);
    fs.rmSync(s.fresh, { recursive: true, force: true });
  });
  return { s, folder };
}

function fail(message: string): never {
  throw new Error(message);
}

/** What npm said while installing must hold no engine, peer-dependency or resolution warning. */
function expectCleanInstall(stderr: string): void {
  expect(stderr.split('\n').filter((l) => /EBADENGINE|ERESOLVE|peer|unmet|ETARGET|E404|deprecated/i.test(l))).toEqual([]);
}

/** An installed package is the one published here: its version, and the identity prepack stamped. */
function expectPublished(installed: string, dir: string): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
  const fields = packageFields(readPublisher(), dir);
  expect({ name: pkg.name, version: pkg.version, homepage: pkg.homepage, author: pkg.author }).toEqual({ name: manifest(dir).name, version: manifest(dir).version, homepage: fields.homepage, author: fields.author });
}

test('the registry holds every package, published from the root as the release does, stamped by prepack', async () => {
  for (const dir of NPM_PACKAGES) {
    const { name, version } = manifest(dir);
    const doc = (await (await fetch(`${registry.url}${name.replace('/', '%2f')}`)).json()) as { versions: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.versions)).toEqual([version]);
    expect(doc.versions[version]).toMatchObject(packageFields(readPublisher(), dir));
    expect(published[dir].stdout).toContain(`+ ${name}@${version}`);
  }
  // A name of ours that was not published here is not fetched from anywhere else.
  expect((await fetch(`${registry.url}@certificate-service%2fnot-published`)).status).toBe(404);
});

test("`npm install @certificate-service/sdk` (the SDK's README), then its issue example against a sandbox", async () => {
  const { s, folder } = await paste('sdk');
  expectSuccess(s);
  expectCleanInstall(s.stderr);
  expectPublished(path.join(folder, 'node_modules/@certificate-service/sdk'), 'shared/sdk');
  // The example, saved under the name its first line gives, run with the reader's node.
  const example = fences('shared/sdk/README.md').find((f) => f.key === 'shared/sdk/README.md › Issue certificates' && f.lang === 'js')!.text;
  const name = /^\/\/ ([\w.-]+)$/.exec(example.split('\n')[0])![1];
  fs.writeFileSync(path.join(folder, name), example);
  const ws = sandbox.controls.createWorkspace();
  const out = await run(readerNode, [name], { cwd: folder, env: { PATH: process.env.PATH, CERTSVC_BASE_URL: sandbox.baseUrl, CERTSVC_API_KEY: ws.apiKey } });
  expect(out.stderr).toBe('');
  expect(out.stdout.trim().split('\n')).toEqual([
    expect.stringMatching(/^ada@example\.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
    expect.stringMatching(/^alan@example\.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
    '2 issued, 0 already issued, 0 not issued',
  ]);
  expect(sandbox.controls.quota(ws.workspaceId).used).toBe(2);
});

test('`npx -p @certificate-service/cli certsvc …` (the CLI README, docs/subscriptions.md) against a sandbox', async () => {
  const ws = sandbox.controls.createWorkspace();
  const { id } = await (await fetch(`${sandbox.baseUrl}/webhooks/subscriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ws.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: 'https://hooks.example.com/certsvc', events: ['certificate.issued'] }),
  })).json() as { id: string };
  // docs/subscriptions.md's `export` line holds placeholders (blocks.ts skips it): these stand for it.
  const { s } = await paste('cli', { CERTSVC_BASE_URL: sandbox.baseUrl, CERTSVC_API_KEY: ws.apiKey });
  expectSuccess(s);
  expectCleanInstall(s.stderr);
  expect(s.stdout).toMatch(/^Usage: certsvc /m);
  expect(s.stdout).toContain(id); // subscriptions list
});

test('`npm install --save-dev @certificate-service/sandbox @certificate-service/sdk`, then `npx certsvc-sandbox` (the sandbox README)', async () => {
  const { s, folder } = await paste('sandbox');
  expectSuccess(s);
  expectCleanInstall(s.stderr);
  expectPublished(path.join(folder, 'node_modules/@certificate-service/sandbox'), 'shared/sandbox');
  expectPublished(path.join(folder, 'node_modules/@certificate-service/sdk'), 'shared/sdk');
  expect(Object.keys(JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')).devDependencies).sort()).toEqual(['@certificate-service/sandbox', '@certificate-service/sdk']);
  const banner = s.serverLogs()[0];
  const baseUrl = /base URL : (\S+)/.exec(banner)?.[1];
  const apiKey = /API key {2}: (\S+)/.exec(banner)?.[1];
  expect(baseUrl).toBe(`http://127.0.0.1:${s.port}/api/v1`);
  expect((await fetch(`${baseUrl}/auth`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}` } })).status).toBe(200);
});

/** The MCP client configurations of shared/mcp/README.md: the command and arguments each gives. */
function mcpLaunches(): Array<{ command: string; args: string[] }> {
  const configs = fences('shared/mcp/README.md').filter((f) => f.key === 'shared/mcp/README.md › Configure your client' && f.lang === 'json').map((f) => JSON.parse(f.text));
  const launches: Array<{ command: string; args: string[] }> = configs.map((c) => (c.mcpServers ?? c.servers)['certificate-service']);
  return launches.filter((l) => l.command !== 'node'); // the last one runs a clone's build
}

/** Starts an MCP server over stdio with the official client, and checks it answers. */
async function expectMcpAnswers(command: string, args: string[], cwd: string, home: string): Promise<void> {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const ws = sandbox.controls.createWorkspace();
  const env = withReader({ CERTSVC_BASE_URL: sandbox.baseUrl, CERTSVC_API_KEY: ws.apiKey })(readerEnvOf(home), home);
  const transport = new StdioClientTransport({ command, args, cwd, env: env as Record<string, string>, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c));
  const client = new Client({ name: 'registry-test', version: '1' });
  try {
    // `npx -y` installs the server and its dependencies first: minutes on a busy machine, not the default 60 s.
    await client.connect(transport, { timeout: 300_000 });
    expect(client.getServerVersion()?.name).toBeTruthy();
    expect((await client.listTools()).tools).toHaveLength(16);
    const batch = (await client.callTool({ name: 'create_batch', arguments: { title: 'From the registry', designId: 'design_classic' } })).structuredContent as { batch: { id: string } };
    const issued = (await client.callTool({ name: 'issue_certificates', arguments: { batchId: batch.batch.id, recipients: [{ name: 'Ada', email: 'ada@example.com' }] } })).structuredContent as { counts: { issued: number } };
    expect(issued.counts.issued).toBe(1);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- server stderr ---\n${stderr.slice(-3000)}`);
  } finally {
    await client.close();
  }
  expect(sandbox.controls.quota(ws.workspaceId).used).toBe(1);
  expectCleanInstall(stderr);
}

test('the MCP server as its README configures clients (npx -y @certificate-service/mcp) answers the official client', async () => {
  const launches = mcpLaunches();
  expect(launches.length).toBeGreaterThanOrEqual(2); // Claude Desktop and Cursor, VS Code
  expect(new Set(launches.map((l) => JSON.stringify([l.command, l.args]))).size).toBe(1);
  const [{ command, args }] = launches;
  expect(command).toBe('npx');
  const home = readerHome('mcp');
  await expectMcpAnswers(command, args, emptyFolder('mcp'), home);
});

test("`certsvc mcp` after the MCP README's `npm install -g @certificate-service/cli @certificate-service/mcp` (the CLI's optional peer)", async () => {
  const text = fs.readFileSync(path.join(ROOT, 'shared/mcp/README.md'), 'utf8');
  const line = /`(npm install -g\s[^`]+)`/.exec(text)?.[1].replace(/\s+/g, ' ');
  expect(line).toBe('npm install -g @certificate-service/cli @certificate-service/mcp');
  const home = readerHome('global');
  fs.appendFileSync(path.join(home, '.npmrc'), `prefix=${path.join(home, '.npm-global')}\n`);
  const folder = emptyFolder('global');
  const env = withReader()(readerEnvOf(home), home);
  const installed = await run('bash', ['-c', line!], { cwd: folder, env }).catch((e: { code: number; stdout: string; stderr: string }) => fail(`${line} failed (${e.code}):\n${e.stderr}`));
  expectCleanInstall(installed.stderr);
  const global = path.join(home, '.npm-global');
  expectPublished(path.join(global, 'lib/node_modules/@certificate-service/cli'), 'shared/cli');
  expectPublished(path.join(global, 'lib/node_modules/@certificate-service/mcp'), 'shared/mcp');
  await expectMcpAnswers(path.join(global, 'bin/certsvc'), ['mcp'], folder, home);
});

test('the n8n package installed into ~/.n8n/nodes as its README says: n8n 2.41.1 loads it and runs the example workflow', async () => {
  ensureN8nInstalled();
  const { s } = await paste('n8n');
  expectSuccess(s);
  expectCleanInstall(s.stderr);
  const nodes = path.join(s.home, '.n8n/nodes/node_modules');
  expectPublished(path.join(nodes, 'n8n-nodes-certificate-service'), 'n8n');
  expect(fs.readdirSync(nodes).filter((n) => !n.startsWith('.'))).toEqual(['n8n-nodes-certificate-service']); // --omit=peer: no n8n-workflow
  // "# restart n8n": n8n with that home as its user folder (it reads ~/.n8n/nodes).
  const n8n = await startN8n({ customExtensionsDir: '', userFolder: s.home });
  cleanups.push(() => n8n.stop());
  const ws = sandbox.controls.createWorkspace();
  const batch = await (await fetch(`${sandbox.baseUrl}/batches`, { method: 'POST', headers: { Authorization: `Bearer ${ws.apiKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'From n8n', designId: 'design_classic' }) })).json() as { id: string };
  const result = await runIssueExample(n8n, { baseUrl: sandbox.baseUrl, apiKey: ws.apiKey, batchId: batch.id });
  expect({ status: result.status, error: result.error }).toEqual({ status: 'success', error: undefined });
  const issued = result.outputOf('Issue Certificate');
  expect(issued.length).toBeGreaterThan(0);
  expect(issued.every((r) => r.batchId === batch.id && /^CERT-/.test(String(r.certificateId)))).toBe(true);
  expect(sandbox.controls.quota(ws.workspaceId).used).toBe(issued.length);
});

test('every block test/readme/blocks.ts leaves to this suite is run here, and each run here is planned', () => {
  const registryPlans = Object.entries(PLANS).filter(([, plan]) => !('notRun' in plan) && plan.registry).map(([key]) => key);
  const ran = Object.values(REGISTRY_RUNS).flat();
  expect(registryPlans.filter((key) => !ran.includes(key))).toEqual([]);
  for (const key of ran) expect(PLANS[key]).toBeDefined();
});
