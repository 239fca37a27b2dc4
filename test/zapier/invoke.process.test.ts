// `zapier-platform invoke` (the CLI's local run of the built app, as a developer tries a Zap
// step) against the sandbox: it runs the create's dynamic input fields first, so a batch
// whose design requires `course` asks for the named field `variable__course`, and a run
// that gives it issues a certificate carrying it. Auth comes from `authData_*` variables,
// the CLI's documented .env format, so no .env file is written.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { newestMtime } from '../support/files';

const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const APP_DIR = path.join(ROOT, 'zapier');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const DIST = path.join(APP_DIR, 'dist', 'index.js');

jest.setTimeout(60_000);

let sb: Sandbox;

beforeAll(async () => {
  // `npm test` builds first; run alone, the app is built here when dist is missing or stale.
  const stale = !fs.existsSync(DIST) || fs.statSync(DIST).mtimeMs < Math.max(newestMtime(path.join(APP_DIR, 'src')), newestMtime(path.join(ROOT, 'shared', 'sdk', 'src')));
  if (stale) await exec(path.join(BIN, 'node'), ['scripts/build.js'], { cwd: APP_DIR });
  sb = await createSandbox({ rateLimit: false });
});
afterAll(async () => sb?.close());

async function invoke(key: string, inputData: Record<string, unknown>) {
  const env = {
    ...process.env,
    // The CLI needs Node >= 22: the repo's Node 24 first on PATH. No analytics, no update check.
    PATH: `${BIN}${path.delimiter}${process.env.PATH}`,
    DISABLE_ZAPIER_ANALYTICS: '1',
    NO_UPDATE_NOTIFIER: '1',
    FORCE_COLOR: '0',
    authData_apiKey: sb.apiKey,
    authData_baseUrl: sb.baseUrl,
  };
  const args = ['invoke', 'create', key, '--non-interactive', '-i', JSON.stringify(inputData)];
  try {
    const { stdout, stderr } = await exec(path.join(BIN, 'zapier-platform'), args, { cwd: APP_DIR, env, timeout: 50_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

test('invoke issue_certificate: the design\'s required variable is a named field, and the certificate carries it', async () => {
  const created = await fetch(`${sb.baseUrl}/batches`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sb.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ title: 'Invoke', designId: 'design_minimal' }),
  });
  const batchId = ((await created.json()) as { id: string }).id;

  // Without it: the CLI loaded the dynamic fields and names the one the design requires.
  const missing = await invoke('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com' });
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toMatch(/Course \| variable__course \| string \| required/);
  expect(sb.controls.certificates(batchId)).toHaveLength(0);

  // `room` is no variable of the design: sent only because the step says so.
  const ok = await invoke('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', variable__course: 'Welding', data: { room: 'B2' }, allow_unknown_variables: 'true' }); // as the CLI takes a boolean field: text
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout)).toMatchObject({ batchId, email: 'ada@example.com', data: { course: 'Welding', room: 'B2' } });
  expect(sb.controls.certificates(batchId).map((c) => c.data)).toEqual([{ course: 'Welding', room: 'B2' }]);
});
