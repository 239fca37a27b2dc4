// The app as Zapier gets it: `zapier-platform validate --without-style` (offline) must
// report nothing, `zapier-platform build` must produce a zip with a working node_modules,
// and that zip's zapierwrapper.js `handler` must work on Node 22 against the sandbox.
// These steps share zapier/dist and zapier/build, so they run in order in this one file.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { ensureNode22, NODE22_VERSION } from './support/node22';

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const APP_DIR = path.join(ROOT, 'zapier');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const ZIP = path.join(APP_DIR, 'build', 'build.zip');

/** The CLI needs Node >= 22 (the repo's Node 24 first on PATH) and must not phone home. */
const cliEnv = {
  ...process.env,
  PATH: `${BIN}${path.delimiter}${process.env.PATH}`,
  DISABLE_ZAPIER_ANALYTICS: '1',
  NO_UPDATE_NOTIFIER: '1',
  FORCE_COLOR: '0',
};

async function cli(args: string[]) {
  try {
    const { stdout, stderr } = await exec(path.join(BIN, 'zapier-platform'), args, { cwd: APP_DIR, env: cliEnv, timeout: 90_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

jest.setTimeout(120_000);

describe('zapier-platform validate', () => {
  it('finds 0 errors and 0 warnings (structure; style checks need Zapier\'s servers)', async () => {
    const { code, stdout, stderr } = await cli(['validate', '--without-style', '--format', 'json']);
    expect(stderr).not.toMatch(/error|warn/i);
    expect(code).toBe(0);
    const json = stdout.slice(stdout.indexOf('['));
    expect(JSON.parse(json)).toEqual([]);
  });
});

describe('zapier-platform build and the zip on Node 22', () => {
  let unzipped = '';
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await createSandbox();
  });

  afterAll(async () => {
    await sb?.close();
    if (unzipped) fs.rmSync(unzipped, { recursive: true, force: true });
  });

  it('builds build/build.zip offline from the workspace (deps hoisted to the repo root)', async () => {
    fs.rmSync(ZIP, { force: true });
    const { code, stdout, stderr } = await cli(['build', '--skip-npm-install', '--skip-validation']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/Error/) });
    expect(stdout).toMatch(/Build complete/);
    expect(fs.existsSync(ZIP)).toBe(true);
  });

  it('the zip holds the wrapper, the bundled app and a node_modules with zapier-platform-core', async () => {
    unzipped = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-zapier-zip-'));
    // The CLI's own unzip (it restores the symlinks the zip uses for the wrapper and entry point).
    const cliDir = path.dirname(require.resolve('zapier-platform-cli/package.json'));
    const decompress = require(path.join(cliDir, 'src', 'utils', 'decompress.js')) as (zip: string, dir: string) => Promise<unknown>;
    await decompress(ZIP, unzipped);

    expect(fs.existsSync(path.join(unzipped, 'zapierwrapper.js'))).toBe(true);
    expect(fs.existsSync(path.join(unzipped, 'definition.json'))).toBe(true);
    const core = JSON.parse(fs.readFileSync(path.join(unzipped, 'node_modules', 'zapier-platform-core', 'package.json'), 'utf8'));
    expect(core.version).toBe('19.1.0');
    // The module-sync files the CLI's detection misses (see zapier/scripts/build.js).
    expect(fs.existsSync(path.join(unzipped, 'node_modules', 'async-function', 'require.mjs'))).toBe(true);
    // The shared core is bundled into the app, not shipped as a workspace link.
    const bundle = fs.readFileSync(path.join(unzipped, 'zapier', 'dist', 'index.js'), 'utf8');
    expect(bundle).toContain('CertificateServiceClient');
    const definition = JSON.parse(fs.readFileSync(path.join(unzipped, 'definition.json'), 'utf8'));
    expect(Object.keys(definition.creates)).toContain('issue_certificate');
  });

  it('runs authentication.test and creates through zapierwrapper.handler on Node 22, against the sandbox', async () => {
    const node22 = await ensureNode22();
    const authData = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
    const events = [
      { command: 'execute', method: 'authentication.test', bundle: { authData } },
      { command: 'execute', method: 'creates.create_batch.operation.perform', bundle: { authData, inputData: { title: 'From the zip', design_id: 'design_modern' } } },
      { command: 'execute', method: 'authentication.test', bundle: { authData: { ...authData, apiKey: 'sk_live_wrong_key' } } },
    ];
    const first = await runInZip(node22, events);
    expect(first.node).toBe(`v${NODE22_VERSION}`);
    expect(first.out[0]).toEqual({ ok: true, results: { workspaceId: 'ws_demo', username: 'Demo Workspace' } });
    expect(first.out[1]).toMatchObject({ ok: true, results: { title: 'From the zip', designId: 'design_modern', status: 'active' } });
    expect(first.out[2]).toMatchObject({ ok: false, name: 'AppError' });
    expect(JSON.parse(String(first.out[2].message))).toMatchObject({ code: 'INVALID_API_KEY', status: 401 });

    const batchId = (first.out[1].results as { id: string }).id;
    const second = await runInZip(node22, [
      {
        command: 'execute',
        method: 'creates.issue_certificate.operation.perform',
        bundle: { authData, inputData: { batch_id: batchId, name: 'Zip Runner', email: 'zip@example.com', data: { course: 'Node 22' }, send: 'false' } },
      },
    ]);
    const issued = second.out[0];
    expect(issued).toMatchObject({ ok: true, results: { batchId, email: 'zip@example.com', data: { course: 'Node 22' }, emailStatus: 'not_sent' } });
    // The sandbox really holds it.
    const token = (issued.results as { shareToken: string }).shareToken;
    const res = await fetch(`${sb.baseUrl}/certificates/by-token/${token}`, { headers: { Authorization: `Bearer ${sb.apiKey}` } });
    expect(res.status).toBe(200);
  });

  async function runInZip(node: string, events: unknown[]) {
    const script = path.join(__dirname, 'support', 'run-handler.js');
    const { stdout } = await exec(node, [script, unzipped, JSON.stringify(events)], { timeout: 60_000, env: { ...process.env, NODE_ENV: 'production' } });
    const line = stdout.split('\n').find((l) => l.startsWith('__RESULTS__'));
    if (!line) throw new Error(`no results from the child process:\n${stdout}`);
    return JSON.parse(line.slice('__RESULTS__'.length)) as { node: string; out: Array<{ ok: boolean; results?: unknown; name?: string; message?: string }> };
  }
});
