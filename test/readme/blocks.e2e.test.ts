/**
 * `npm run test:readme`: every shell block of the READMEs and docs/, run as written, README by
 * README, in one bash session from the repository root, as a reader pastes them into a terminal
 * (blocks.ts lists the blocks and lines that are not run, with the reason). The only
 * changes are these stand-ins for a machine where nothing exists yet:
 *   - port 4010 becomes a free port, and each `/tmp/<name>` a folder that does not exist yet;
 *   - HOME is a fresh empty folder (no ~/.n8n), with npm's download cache and the harness's n8n
 *     install (CERTSVC_CACHE_DIR) kept from this machine; PATH loses the node_modules/.bin
 *     folders `npm run` adds, and the environment npm's and jest's variables;
 *   - `node` is the oldest Node the packages support (the SDK's engines floor), first on PATH;
 *   - a line that keeps running in the foreground (a server) runs in the background; the test
 *     waits for its banner, as a reader waits before pasting on, and stops it by killing its pid.
 * After each README it checks what the blocks made, and that `git status` has not changed.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../support/net';
import { NEXT_STEPS } from '../../demo/next-steps';
import { PLANS } from './blocks';
import { fences, ROOT, shellBlocks, type Fence } from './markdown';
import { expectSuccess, readerEnv, runSession, stopServers, useReaderNode, type Session } from './session';
import { createSandbox } from '@certificate-service/sandbox';
import { ensureN8nInstalled, startN8n } from '../e2e/n8n/harness';
import { runIssueExample } from '../e2e/n8n/workflows';

jest.setTimeout(20 * 60_000);

const blocksByFile = new Map<string, Fence[]>();
for (const block of shellBlocks()) {
  const plan = PLANS[block.key];
  if (!plan || 'notRun' in plan || plan.registry) continue;
  blocksByFile.set(block.file, [...(blocksByFile.get(block.file) ?? []), block]);
}

const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout;

// The reader's Node: the packages' engines floor, not this machine's (which may be older).
beforeAll(() => useReaderNode(), 300_000);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  // Every clean-up runs, even after one fails; the first failure is reported.
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve().then(cleanup).catch((e: unknown) => failures.push(e));
  if (failures.length) throw failures[0];
});

/** What each README's blocks must have made, besides running without an error. */
const CHECKS: Record<string, (s: Session) => Promise<void> | void> = {
  'README.md': async (s) => {
    expect(s.stdout).toContain('All flows passed.'); // npm start
    expect(s.stdout).toContain(NEXT_STEPS); // … and what to try next
    // After `npm install` on this machine's Node, npm runs every script on the devDependency's Node.
    const node = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).devDependencies.node;
    expect(spawnSync('npm', ['exec', '--', 'node', '--version'], { cwd: ROOT, env: readerEnv(s.home), encoding: 'utf8' }).stdout.trim()).toBe(`v${node}`);

    const batch = JSON.parse(/^\{\n[\s\S]*?\n\}$/m.exec(s.stdout)?.[0] ?? 'null');
    expect(batch).toMatchObject({ title: 'From a clone', designId: 'design_classic', status: 'active' });
    expect(s.stdout).toMatch(/workspaceId: 'ws_demo'/); // the app's `node -e … auth()`
    expect(s.stdout).toContain('\\"title\\":\\"From a clone\\"'); // the MCP server's list_batches (its text content), through the Inspector CLI
    // The first certificate: `certsvc issue` from examples/learners.csv issued every row, and the
    // line after it printed the first one's URL, whose page (the sandbox still runs) shows it.
    const rows = fs.readFileSync(path.join(ROOT, 'examples/learners.csv'), 'utf8').trim().split('\n').length - 1;
    expect(s.stdout).toMatch(new RegExp(`^\\{"issued":${rows},"skipped":0,"invalid":0,"failed":0,"unknown":0,"notSent":0,"requests":\\d+\\}$`, 'm'));
    const certUrl = new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/v/\\S+$`, 'm').exec(s.stdout)?.[0];
    expect(certUrl).toBeDefined();
    const page = await fetch(certUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Ada Lovelace');
    const nodes = path.join(s.home, '.n8n/nodes/node_modules');
    expect(fs.existsSync(path.join(nodes, 'n8n-nodes-certificate-service/dist/nodes/CertificateService/CertificateService.node.js'))).toBe(true);
    expect(fs.existsSync(path.join(nodes, 'n8n-workflow'))).toBe(false); // --omit=peer

    // The block's last line, `bash test/e2e/n8n/n8n.sh start`, through the harness: n8n reads ~/.n8n/nodes.
    const [program, launcher, command] = 'bash test/e2e/n8n/n8n.sh start'.split(' ');
    ensureN8nInstalled();
    const n8n = await startN8n({ customExtensionsDir: '', userFolder: s.home, launcher: [program, path.join(ROOT, launcher)] });
    expect(command).toBe('start');
    cleanups.push(() => n8n.stop());
    const result = await runIssueExample(n8n, { baseUrl: `http://127.0.0.1:${s.port}/api/v1`, apiKey: 'sk_live_sandbox_demo_key_0001', batchId: batch.id });
    expect(result.status).toBe('success');
    const issued = result.outputOf('Issue Certificate');
    expect(issued.length).toBeGreaterThan(0);
    expect(issued.every((r) => r.batchId === batch.id && /^CERT-/.test(String(r.certificateId)))).toBe(true);
  },
  'n8n/README.md': (s) => {
    const folder = path.join(s.fresh, 'n8n-custom/n8n-nodes-certificate-service');
    expect(fs.existsSync(path.join(folder, 'package.json'))).toBe(true);
    expect(fs.existsSync(path.join(folder, 'dist/nodes/CertificateService/CertificateService.node.js'))).toBe(true);
  },
  'shared/cli/README.md': (s) => {
    expect(s.stdout).toMatch(/^Usage: certsvc /m);
  },
  'shared/mcp/README.md': (s) => {
    expect(s.stderr).toMatch(/--read-only/); // the built server's --help, on stderr (stdout is the protocol's)
  },
  'shared/sandbox/README.md': (s) => {
    const app = path.join(s.fresh, 'certsvc/your-app/node_modules/@certificate-service');
    expect(fs.readdirSync(app).sort()).toEqual(['sandbox', 'sdk']);
    // What it printed is what the block shows in its comments ("…" stands for an id or a secret).
    const block = blocksByFile.get(s.file)!.find((b) => b.key.endsWith('Start it'))!;
    const shown = block.text.split('\n').filter((l) => l.startsWith('# ')).map((l) => l.slice(2).replaceAll('4010', String(s.port)));
    const pattern = shown.map((l) => (l.trim() === '...' ? '(?:.*\\n)*?' : `${l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('…', '\\S*')}\\n`)).join('');
    expect(s.serverLogs()[0]).toMatch(new RegExp(`^${pattern}`));
  },
  'shared/sdk/README.md': async (s) => {
    const app = path.join(s.fresh, 'certsvc/your-app');
    expect(fs.existsSync(path.join(app, 'node_modules/@certificate-service/sdk/dist/index.js'))).toBe(true);
    // The issue example, saved in that app (made by `npm init -y`) under the name its first line
    // gives, and run with the reader's node against a sandbox, as the README says.
    const example = fences('shared/sdk/README.md').find((f) => f.key === 'shared/sdk/README.md › Issue certificates' && f.lang === 'js')!.text;
    const name = /^\/\/ ([\w.-]+)$/.exec(example.split('\n')[0])?.[1];
    expect(name).toMatch(/\.m?js$/);
    fs.writeFileSync(path.join(app, name!), example);
    const sandbox = await createSandbox({ rateLimit: false });
    cleanups.push(() => sandbox.close());
    // Asynchronously: the sandbox answers from this process.
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('node', [name!], { cwd: app, env: { ...readerEnv(s.home), CERTSVC_BASE_URL: sandbox.baseUrl, CERTSVC_API_KEY: sandbox.apiKey! } }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^ada@example\.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
      expect.stringMatching(/^alan@example\.com: issued CERT-\d{4}-\d{6}-\d{4}$/),
      '2 issued, 0 already issued, 0 not issued',
    ]);
  },
  'test/bench/README.md': (s) => {
    expect(s.stdout).toMatch(/^\| P1 \| /m);
  },
  'zapier/README.md': (s) => {
    expect(fs.statSync(path.join(ROOT, 'zapier/build/build.zip')).mtimeMs).toBeGreaterThan(Date.now() - 15 * 60_000);
    expect(s.stdout).toContain('"workspaceId": "ws_demo"'); // invoke auth test
    expect(s.stdout).toContain('"id": "design_minimal"'); // invoke trigger design_list
    expect(s.stdout).toMatch(/"title": "Tried locally",\s*"designId": "design_minimal"/); // invoke create create_batch
  },
};

test('every README with blocks to run has its checks', () => {
  expect([...blocksByFile.keys()].sort()).toEqual(Object.keys(CHECKS).sort());
});

test.each([...blocksByFile.keys()])('%s: its blocks run as written', async (file) => {
  const before = git('status', '--porcelain');
  // `invoke` reads zapier/.env, which the Zapier README writes: keep a developer's own.
  const env = path.join(ROOT, 'zapier/.env');
  if (file === 'zapier/README.md' && fs.existsSync(env)) {
    const kept = fs.readFileSync(env);
    cleanups.push(() => fs.writeFileSync(env, kept));
  }
  if (file === 'zapier/README.md') cleanups.push(() => fs.rmSync(env, { force: true }));

  const session = await runSession(file, blocksByFile.get(file)!, await freePort());
  cleanups.push(() => {
    fs.rmSync(session.fresh, { recursive: true, force: true });
    fs.rmSync(session.home, { recursive: true, force: true });
  });
  cleanups.push(async () => {
    // `kill <pid>` of each server stops it: certsvc-sandbox started through npm exec or npx included.
    const left = await stopServers(session);
    expect(left.map((pids, i) => (pids.length ? `server ${i + 1} left ${pids.length} processes running` : ''))).toEqual(session.serverPids.map(() => ''));
  });
  expectSuccess(session);
  await CHECKS[file](session);
  expect(git('status', '--porcelain')).toBe(before);
});
