/**
 * The root README's "Try it from this clone", followed as written: its shell block runs in bash
 * from the repository root, with four substitutions a test needs (each a stand-in for the
 * reader's machine, not a change of the steps):
 *   - `npm install && npm run build` is skipped: `npm test` has just done it, and a rebuild
 *     while other suites read dist/ would disturb them;
 *   - port 4010 becomes a free port, `/tmp/certsvc` a fresh temp folder, and `~` a temp HOME;
 *   - `n8n start` is the harness's n8n 2.41.1 with that HOME as its user folder (so it reads
 *     `~/.n8n/nodes`) and no N8N_CUSTOM_EXTENSIONS.
 * Then, as the README's next paragraph says: a credential, an example workflow imported as
 * shipped (its node types unchanged), the credential and the batch chosen, and a run.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../support/net';
import { ensureN8nInstalled, startN8n, type N8nInstance, type WorkflowJson } from './harness';
import { ensurePackageBuilt, PACKAGE_DIR, withDescendants } from './package-setup';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../../..');
const section = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('## Try it from this clone')[1].split('\n## ')[0];
const block = section.split('```sh\n')[1].split('```')[0];

let home: string;
let tmp: string;
let port: number;
let n8n: N8nInstance | undefined;
let sandboxPid: number | undefined;
let script: { status: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  ensureN8nInstalled();
  ensurePackageBuilt();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'try-clone-home-'));
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'try-clone-'));
  port = await freePort();
  const lines = block.split('\n').map((line) => {
    if (line.trim() === 'npm install && npm run build') return '# (built by npm test)';
    if (line.trim() === 'n8n start') return '# n8n start: the harness starts it below';
    // The background sandbox: its output goes to a file (an inherited pipe would keep the
    // script "running" until the sandbox ends), and its pid is kept so the test can stop it.
    if (line.trim().endsWith('&')) return `${line.trim().slice(0, -1)} > ${tmp}/sandbox.log 2>&1 &\necho $! > ${tmp}/sandbox.pid\nfor i in $(seq 150); do (echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.2; done`;
    return line;
  });
  const text = ['set -euo pipefail', ...lines].join('\n').replaceAll('4010', String(port)).replaceAll('/tmp/certsvc', tmp);
  fs.writeFileSync(path.join(tmp, 'try.sh'), text);
  const result = spawnSync('bash', [path.join(tmp, 'try.sh')], { cwd: ROOT, env: { ...process.env, HOME: home, npm_config_cache: path.join(os.homedir(), '.npm') }, encoding: 'utf8', timeout: 240_000 });
  script = { status: result.status, stdout: result.stdout, stderr: result.stderr };
  sandboxPid = Number(fs.readFileSync(path.join(tmp, 'sandbox.pid'), 'utf8')) || undefined;
}, 300_000);

afterAll(async () => {
  await n8n?.stop(); // also deletes its user folder, the temp HOME
  // `npm exec` runs the bin in a child process: stop the whole tree (found through /proc).
  for (const pid of sandboxPid ? withDescendants([sandboxPid]) : []) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

/** The batch `certsvc batches create` printed (pretty JSON, from a line "{" to a line "}"). */
function createdBatch(): Record<string, unknown> {
  const match = /^\{\n[\s\S]*?\n\}$/m.exec(script.stdout);
  if (!match) throw new Error(`no batch printed; the script printed:\n${script.stdout.slice(-2000)}`);
  return JSON.parse(match[0]);
}


test('the shell block runs as written: the CLI creates a batch, the packed SDK answers from an app, the n8n package is in ~/.n8n/nodes', () => {
  expect({ status: script.status, stderr: script.status ? script.stderr.slice(-2000) : '' }).toEqual({ status: 0, stderr: '' });
  const batch = createdBatch();
  expect(batch).toMatchObject({ title: 'From a clone', designId: 'design_classic', status: 'active' });
  expect(script.stdout).toMatch(/workspaceId: 'ws_demo'/); // the app's `node -e … auth()` printed the workspace
  const nodes = path.join(home, '.n8n/nodes/node_modules');
  expect(fs.existsSync(path.join(nodes, 'n8n-nodes-certificate-service/dist/nodes/CertificateService/CertificateService.node.js'))).toBe(true);
  expect(fs.existsSync(path.join(nodes, 'n8n-workflow'))).toBe(false); // --omit=peer
});

test('n8n loads the package from ~/.n8n/nodes, and an example workflow imported as shipped issues a certificate', async () => {
  const batchId = createdBatch().id as string;
  n8n = await startN8n({ customExtensionsDir: '', userFolder: home });
  const credential = await n8n.createCredential('certificateServiceApi', 'Certificate Service', { apiKey: 'sk_live_sandbox_demo_key_0001', baseUrl: `http://127.0.0.1:${port}/api/v1` });
  const example = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'examples/issue-from-spreadsheet.json'), 'utf8')) as WorkflowJson & { nodes: Array<Record<string, any>> };
  for (const node of example.nodes) {
    if (!node.type.startsWith('n8n-nodes-certificate-service.')) continue;
    // What the README says to choose after import: the credential and the batch.
    node.credentials = { certificateServiceApi: { id: credential.id, name: 'Certificate Service' } };
    node.parameters.batch = { __rl: true, mode: 'id', value: batchId };
  }
  const { id } = await n8n.createWorkflow({ name: example.name, nodes: example.nodes, connections: example.connections });
  const result = await n8n.runWorkflow(id);
  expect(result.status).toBe('success');
  const issued = result.outputOf('Issue Certificate');
  expect(issued.length).toBeGreaterThan(0);
  expect(issued.every((r: Record<string, unknown>) => r.batchId === batchId && /^CERT-/.test(String(r.certificateId)))).toBe(true);
});
