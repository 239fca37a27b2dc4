// fileStore shared by several real Node processes on one machine (issue 41, item 1): no event runs
// twice and no acknowledged claim is lost, (1) with four processes hammering claims and settles on
// one file, restarting as they go, and (2) with the README's recovery recipe in one process while a
// receiver process on the same file takes the service's late retries from the sandbox.
// CERTSVC_TEST_FILE_STORE=jsonl runs the same against the earlier JSON-lines store (the baseline,
// test/bench/stores/jsonl-file-store.cjs): it fails, with its figures. Importing the SDK loads no
// SQLite. A process test: `npm test` runs it, `npm run test:unit` leaves it out.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { createClient, fileStore } from '@certificate-service/sdk';
import { ensureBuilt } from '../../support/built';
import { freePort } from '../../support/net';
import { until } from '../../support/until';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const WORKER = path.join(__dirname, 'support/store-worker.cjs');
const STORE = process.env.CERTSVC_TEST_FILE_STORE === 'jsonl' ? 'jsonl' : 'sqlite';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { jsonlFileStore } = require('../../bench/stores/jsonl-file-store.cjs') as { jsonlFileStore(file: string): { claim(key: string): string; close(): void } };
const openStore = (file: string) => (STORE === 'jsonl' ? jsonlFileStore(file) : fileStore(file));

let dir: string;
beforeAll(() => ensureBuilt());
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'file-store-processes-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Worker {
  out: () => string;
  exited: Promise<number | null>;
  kill(): void;
}

function worker(config: Record<string, unknown>): Worker {
  const child = spawn(NODE, [WORKER, JSON.stringify({ store: STORE, ...config })], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  return { out: () => out, exited: new Promise((resolve) => child.on('exit', resolve)), kill: () => child.kill('SIGKILL') };
}

/** A worker's output but its counts, its 'ready' and Node's one ExperimentalWarning for SQLite. */
const errorsIn = (out: string) =>
  out
    .split('\n')
    .filter((l) => l && !/^(\{|ready$|listening$|\(node:\d+\) ExperimentalWarning: SQLite|\(Use `node --trace-warnings)/.test(l))
    .join('\n');
const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const countBy = (items: string[]) => items.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());

test('four processes hammering one file, restarting every 150 keys: every effect once, every acknowledged claim kept', async () => {
  const file = path.join(dir, 'claims.db');
  const effects = path.join(dir, 'effects.log');
  const acked = path.join(dir, 'acked.log');
  const KEYS = 600;
  const goFlag = path.join(dir, 'go');
  const workers = [0, 1, 2, 3].map((i) => worker({ mode: 'hammer', file, worker: i, keys: KEYS, passes: 2, failEvery: 10, reopenEvery: 150, effectMs: 2, effects, acked, goFlag }));
  await until('every process to open the store', () => workers.every((w) => w.out().includes('ready')), 60_000);
  fs.writeFileSync(goFlag, '');
  const codes = await Promise.all(workers.map((w) => w.exited));
  expect({ codes, errors: workers.map((w) => errorsIn(w.out())).filter(Boolean) }).toEqual({ codes: [0, 0, 0, 0], errors: [] });
  const runs = countBy(lines(effects).map((l) => l.split(' ')[0]));
  const twice = [...runs].filter(([, n]) => n > 1);
  const ack = lines(acked);
  const store = openStore(file);
  const lost = ack.filter((key) => store.claim(key) !== 'done');
  store.close?.();
  const counts = workers.map((w) => JSON.parse(w.out().trim().split('\n').pop()!) as Record<string, number>);
  console.log(`${STORE}: 4 processes, ${KEYS} keys: ${ack.length} acknowledged, ${[...runs.values()].reduce((a, b) => a + b, 0)} effects, ${twice.length} keys run more than once, ${lost.length} acknowledged claims lost; per process ${JSON.stringify(counts)}`);
  expect(twice).toEqual([]);
  expect(lost).toEqual([]);
  expect(ack.length).toBe(runs.size);
  expect(runs.size).toBeGreaterThan(KEYS * 0.9); // nearly every key ran (a released key may find every later pass past it)
  expect(counts.reduce((n, c) => n + c.released, 0)).toBeGreaterThan(0);
});

describe('the README recovery recipe in one process while a receiver process on the same file takes the late retries', () => {
  let sb: Sandbox;
  afterEach(async () => sb?.close());

  test('each missed event runs once, in one process or the other', async () => {
    // Retries after 12 ms, 60 ms, 0.36 s, 1.44 s, 8.6 s, …: the receiver is down through three
    // attempts of every delivery.
    sb = await createSandbox({ rateLimit: false, timeScale: 0.0002, mailDelayMs: 1 });
    const ws = sb.controls.createWorkspace();
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const file = path.join(dir, 'claims.db');
    const effects = path.join(dir, 'effects.log');
    const downFlag = path.join(dir, 'down');
    const goFlag = path.join(dir, 'go');
    fs.writeFileSync(downFlag, '');
    const port = await freePort();
    const sub = await client.createSubscription({ url: `http://127.0.0.1:${port}/hooks`, events: ['certificate.issued', 'certificate.sent'] });
    const rx = worker({ mode: 'receiver', port, secret: sub.secret, file, effects, downFlag, delayMs: 20 });
    await until('the receiver to listen', () => rx.out().includes('listening'), 30_000);
    const since = Date.now() - 1000;
    const recovery = worker({ mode: 'recover', baseUrl: sb.baseUrl, apiKey: ws.apiKey, since, file, effects, goFlag, delayMs: 100 });
    await until('the recovery to be ready', () => recovery.out().includes('ready'), 30_000);
    const batch = await client.createBatch({ title: 'Outage', designId: 'design_classic' });
    const N = 20;
    await client.issueBulk(batch.id, Array.from({ length: N }, (_, i) => ({ name: `P${i}`, email: `p${i}@example.com` })), { send: true });
    const mine = (log: ReturnType<Sandbox['controls']['deliveries']>) => log.filter((a) => a.subscriptionId === sub.id);
    // 2N deliveries (issued, sent), each refused three times.
    await sb.controls.waitForDeliveries((log) => mine(log).filter((a) => a.attempt === 3).length >= 2 * N, 60_000);
    // The recovery starts; once it has run its first event the receiver comes up, and the fourth
    // attempts reach it while the recovery goes on (100 ms an event).
    fs.writeFileSync(goFlag, '');
    await until('the recovery to run its first event', () => lines(effects).some((l) => l.includes(' recovery ')), 30_000, 5);
    fs.rmSync(downFlag);
    expect(await recovery.exited).toBe(0);
    await sb.controls.waitForDeliveries((log) => mine(log).filter((a) => a.outcome === 'succeeded').length >= 2 * N, 60_000);
    rx.kill();
    await rx.exited;
    const result = JSON.parse(recovery.out().trim().split('\n').pop()!) as { found: number; ran: number; duplicates: number; pending: number };
    const ran = lines(effects).map((l) => l.split(' '));
    const runs = countBy(ran.map(([key]) => key));
    const bySource = countBy(ran.map(([, source]) => source));
    const log = mine(sb.controls.deliveries());
    const answered503 = log.filter((a) => a.status === 503 && a.attempt > 3).length;
    const recoveryTimes = ran.filter(([, s]) => s === 'recovery').map(([, , t]) => Number(t));
    const receiverDuring = ran.filter(([, s, t]) => s === 'receiver' && Number(t) >= Math.min(...recoveryTimes) && Number(t) <= Math.max(...recoveryTimes)).length;
    console.log(
      `${STORE}: ${2 * N} events missed; recovery found ${result.found}, ran ${result.ran}, duplicates ${result.duplicates}, pending ${result.pending}; ` +
        `runs by source ${JSON.stringify(Object.fromEntries(bySource))} (${receiverDuring} by the receiver while the recovery ran); ` +
        `keys run twice: ${[...runs].filter(([, n]) => n > 1).length}; late attempts answered 503 (pending): ${answered503}; attempts in all: ${log.length}`,
    );
    expect([...runs].filter(([, n]) => n > 1)).toEqual([]);
    expect(runs.size).toBe(2 * N);
    // Both ran events, the receiver some while the recovery was running: they met on one file.
    expect(bySource.get('recovery')).toBeGreaterThan(0);
    expect(receiverDuring).toBeGreaterThan(0);
    expect(result.found).toBe(2 * N);
  });
});

test('a done key is synced to the disk before settle returns; claims and releases are not (strace)', () => {
  const script = `
    const { writeSync } = require('node:fs');
    const store = require('@certificate-service/sdk').fileStore(${JSON.stringify(path.join(dir, 'sync.db'))});
    store.claim('warm-up'); // a new WAL's header is synced once
    for (let i = 0; i < 5; i++) {
      writeSync(1, '--- claim\\n'); store.claim('k' + i);
      writeSync(1, '--- release\\n'); store.settle('k' + i, false);
      writeSync(1, '--- claim\\n'); store.claim('k' + i);
      writeSync(1, '--- done\\n'); store.settle('k' + i, true);
    }
    writeSync(1, '--- end\\n');`;
  const traced = spawnSync('strace', ['-f', '-e', 'trace=fsync,fdatasync,write', '-o', path.join(dir, 'trace'), NODE, '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(traced.error).toBeUndefined(); // strace is in the machine image (Debian's strace)
  expect(traced.status).toBe(0);
  const syncs: Record<string, number[]> = { claim: [], release: [], done: [] };
  let section: string | undefined;
  for (const line of fs.readFileSync(path.join(dir, 'trace'), 'utf8').split('\n')) {
    const mark = /write\(1, "--- (\w+)/.exec(line)?.[1];
    if (mark) {
      section = mark;
      syncs[mark]?.push(0);
    } else if (section && syncs[section] && /\b(fsync|fdatasync)\(/.test(line)) syncs[section][syncs[section].length - 1]++;
  }
  expect(syncs).toEqual({ claim: Array(10).fill(0), release: Array(5).fill(0), done: Array(5).fill(1) });
});

test('importing the SDK loads no SQLite and prints nothing; fileStore loads it', () => {
  const script = (body: string) => spawnSync(NODE, ['-e', body], { cwd: ROOT, encoding: 'utf8' });
  const plain = script("require('@certificate-service/sdk'); process.stdout.write(String(process.moduleLoadList.some((m) => m.includes('sqlite'))))");
  expect([plain.stdout, plain.stderr, plain.status]).toEqual(['false', '', 0]);
  const file = path.join(dir, 'claims.db');
  const used = script(`const s = require('@certificate-service/sdk').fileStore(${JSON.stringify(file)}); process.stdout.write(s.claim('k'))`);
  expect([used.stdout, used.status]).toEqual(['taken', 0]);
});
