// Issue 35, item 2, across processes: a retry never issues twice when the first run is in another
// Node process (file markers in the state folder), still going or killed mid-call. Against the
// stub service of retry-stub.ts (which has the in-one-process cases). A process test:
// `npm test` runs it, `npm run test:unit` leaves it out (*.process.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countOutcomes, fileInFlightMarkers } from '@certificate-service/sdk';
import { ensureBuilt } from '../support/built';
import { certificates, client, pause, people, posts, retryStub } from './retry-stub';
import { until } from '../support/until';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const world = retryStub();

describe('across processes (file markers in the state folder)', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(() => ensureBuilt());
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certsvc-state-'));
  });
  afterEach(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A second Node process issuing `n` emails with file markers; resolves once it has sent its first call. */
  async function childIssuing(n: number): Promise<{ done: Promise<string> }> {
    child = spawn(path.join(ROOT, 'node_modules/.bin/node'), [path.join(__dirname, 'support/issue-child.cjs'), world.stub.baseUrl, 'b1', String(n), 'p'], {
      cwd: ROOT,
      env: { ...process.env, CERTSVC_STATE_DIR: dir },
    });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const done = new Promise<string>((resolve) => child!.on('exit', () => resolve(out)));
    await until('certsvc to be sending', () => out.includes('sending') && posts(world.stub) > 0);
    return { done };
  }

  test('a run in another process, still going: this run waits for its markers, then skips what it issued', async () => {
    const { done } = await childIssuing(200);
    world.stub.holdBulkMs = 0;
    expect(fs.readdirSync(path.join(dir, 'in-flight'))).toHaveLength(200);
    const retry = await client(world.stub).issueMany(people(200), { inFlight: fileInFlightMarkers({ dir: path.join(dir, 'in-flight') }) });
    expect(await done).toContain('"issued":200');
    expect(countOutcomes(retry)).toMatchObject({ skipped: 200 });
    expect(certificates(world.stub)).toHaveLength(200);
    expect(fs.readdirSync(path.join(dir, 'in-flight'))).toEqual([]); // every marker released
  });

  test('the issue\'s timing with the first process killed mid-call (SIGKILL), a retry 1 s later in another: exactly 500', async () => {
    const { done } = await childIssuing(500);
    world.stub.holdBulkMs = 0;
    child!.kill('SIGKILL'); // a per-call client's server process, killed while its bulk call is at the service
    await done;
    await pause(1_000);
    // Its 100 sent markers hold until they settle (4 s after sending here; 60 s by default); its
    // 400 never-sent markers are taken over at once.
    const retry = await client(world.stub).issueMany(people(500), { inFlight: fileInFlightMarkers({ dir: path.join(dir, 'in-flight'), orphanSettleMs: 4_000 }), inFlightWaitMs: 20_000 });
    expect(countOutcomes(retry)).toMatchObject({ skipped: 100, issued: 400 });
    expect(certificates(world.stub)).toHaveLength(500);
    expect(new Set(certificates(world.stub)).size).toBe(500);
  });

  test('a marker file is named by a hash and says nothing of the key or the email', async () => {
    const { done } = await childIssuing(3);
    world.stub.holdBulkMs = 0;
    const files = fs.readdirSync(path.join(dir, 'in-flight'));
    expect(files.every((f) => /^[0-9a-f]{64}$/.test(f))).toBe(true);
    const text = files.map((f) => fs.readFileSync(path.join(dir, 'in-flight', f), 'utf8')).join('');
    expect(text).not.toMatch(/example\.com|sk_test/);
    await done;
  });
});
