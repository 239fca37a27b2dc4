// Four receiver processes behind round-robin nginx, sharing one store (issue 41, item 1): first
// Redis (two on node-redis, two on ioredis), then Postgres. The sandbox sends 2,000 deliveries
// (1,000 certificates issued and sent), each twice at once (its duplicate copies), its retries
// sped up (timeScale); onEvent takes a few ms, so a copy often arrives while the first is pending
// (503, retried). Mid-run one receiver is killed (SIGKILL) the honest way: told first (SIGUSR1),
// it blocks every new onEvent before its effect, and once every other request it had is
// answered (effect written, claim settled) it is killed; its blocked claims stay pending until
// pendingMs, and the sender's retries run them elsewhere. Every event runs exactly once (the
// effects log), none is lost. Heavy (real Redis, Postgres, nginx, 4 processes): `npm test` runs
// it, `npm run test:unit` leaves it out (*.e2e.test.ts); not test/e2e/queue, which is n8n's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { claimKey, createClient, type WebhookEvent } from '@certificate-service/sdk';
import { startNginx } from '../e2e/queue/services';
import { ensureBuilt } from '../support/built';
import { freePort } from '../support/net';
import { startStoreServices, type StoreServices } from '../support/store-services';
import { until } from '../support/until';

jest.setTimeout(900_000);

const ROOT = path.resolve(__dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const RECEIVER = path.join(__dirname, 'support/receiver-process.cjs');
const CERTIFICATES = 1_000;
const PENDING_MS = 10_000;

let services: StoreServices;
let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  services = await startStoreServices();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'four-receivers-'));
});
afterAll(async () => {
  await services?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Receiver {
  name: string;
  child: ChildProcess;
  out: () => string;
  exited: Promise<unknown>;
}

function receiver(name: string, config: Record<string, unknown>): Receiver {
  const child = spawn(NODE, [RECEIVER, JSON.stringify({ name, ...config })], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  return { name, child, out: () => out, exited: new Promise((resolve) => child.on('exit', resolve)) };
}

describe.each([
  ['Redis', (i: number) => ({ store: 'redis', url: services.redisUrl, client: i % 2 ? 'ioredis' : 'node-redis', prefix: 'r8:' })],
  ['Postgres', () => ({ store: 'postgres', url: services.postgresUrl, table: 'r8_deliveries' })],
])('four receivers on one %s store behind round-robin nginx', (storeName, storeConfig) => {
  let sb: Sandbox | undefined;
  let receivers: Receiver[] = [];
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  afterEach(async () => {
    for (const r of receivers) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    await nginx?.stop();
    await sb?.close();
  });

  test('2,000 deliveries, each sent twice, one receiver killed mid-run: every event ran exactly once, none lost', async () => {
    const started = Date.now();
    // Retries after 0.12 s, 0.6 s, 3.6 s, 14.4 s, …; at most 32 attempts in flight, as a sender paces.
    sb = await createSandbox({ rateLimit: false, timeScale: 0.002, mailDelayMs: 1, deliveryConcurrency: 32, deliveryTimeoutMs: 5_000, maxLogEntries: 200_000 });
    const ws = sb.controls.createWorkspace();
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const ports = await Promise.all([0, 1, 2, 3].map(() => freePort()));
    nginx = await startNginx(dir, { webhookPorts: ports, mainPort: ports[0], routing: 'round-robin' });
    const sub = await client.createSubscription({ url: `${nginx.url}/webhook/certsvc`, events: ['certificate.issued', 'certificate.sent'] });
    const effects = path.join(dir, `effects-${storeName}.log`);
    receivers = ports.map((port, i) => receiver(`r${i}`, { port, secret: sub.secret, pendingMs: PENDING_MS, effects, delayMs: 15, ...storeConfig(i) }));
    await until('the receivers to listen', () => receivers.every((r) => r.out().includes('listening')), 60_000);
    sb.controls.setDuplicateDeliveries(2);

    const batch = await client.createBatch({ title: 'Four receivers', designId: 'design_classic' });
    for (let from = 0; from < CERTIFICATES; from += 100) {
      await client.issueBulk(batch.id, Array.from({ length: 100 }, (_, i) => ({ name: `P${from + i}`, email: `p${from + i}@example.com` })), { send: true });
    }
    const ran = () => (fs.existsSync(effects) ? fs.readFileSync(effects, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ') as [string, string]) : []);

    // The kill, a third of the way through: told, blocked, quiet, then SIGKILL.
    const doomed = receivers[1];
    await until('a third of the events to run', () => ran().length >= (2 * CERTIFICATES) / 3, 300_000, 100);
    doomed.child.kill('SIGUSR1');
    // Quiet once: every onEvent that began before the signal has written its effect and settled;
    // every later one blocks before its effect. So it can be killed from then on; it is, once it
    // holds a few blocked claims (nginx keeps sending it a quarter of the traffic).
    await until('the doomed receiver to be quiet', () => doomed.out().includes('quiet'), 60_000, 20);
    await until('the doomed receiver to hold 3 blocked events', () => doomed.out().split('\n').filter((l) => l.startsWith('blocked ')).length >= 3, 60_000, 20);
    const ranByDoomedAtKill = ran().filter(([, name]) => name === doomed.name).length;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const blocked = doomed.out().split('\n').filter((l) => l.startsWith('blocked ')).map((l) => l.slice(8));

    // Until the sender has nothing left to retry.
    await until('every delivery to end', () => sb!.controls.counters().deliveries.pending === 0, 600_000, 200);
    const seconds = (Date.now() - started) / 1000;

    // What should have run: each certificate's issue and its send (claimKey, as the receivers claim).
    const expected = new Set<string>();
    for await (const r of client.iterateRecipients(batch.id)) {
      expected.add(claimKey({ type: 'certificate.issued', data: r } as unknown as WebhookEvent, ''));
      expected.add(claimKey({ type: 'certificate.sent', data: r } as unknown as WebhookEvent, ''));
    }
    const runs = ran();
    const times = new Map<string, number>();
    for (const [key] of runs) times.set(key, (times.get(key) ?? 0) + 1);
    const twice = [...times].filter(([, n]) => n > 1);
    const lost = [...expected].filter((key) => !times.has(key));
    const log = sb.controls.deliveries().filter((a) => a.subscriptionId === sub.id);
    const perReceiver = Object.fromEntries(receivers.map((r) => [r.name, runs.filter(([, name]) => name === r.name).length]));
    const blockedRanBy = blocked.map((key) => runs.find(([k]) => k === key)?.[1] ?? 'nobody');
    const figures = {
      store: storeName,
      deliveries: new Set(log.map((a) => a.deliveryId)).size,
      copies: log.filter((a) => a.copy > 0 && a.attempt === 1).length,
      attempts: log.length,
      retries: log.filter((a) => a.attempt > 1).length,
      answered503: log.filter((a) => a.status === 503).length,
      otherFailures: log.filter((a) => a.outcome !== 'succeeded' && a.status !== 503).length,
      failedForGood: log.filter((a) => a.outcome === 'failed').length,
      runs: runs.length,
      perReceiver,
      ranByDoomedBeforeKill: ranByDoomedAtKill,
      blockedAtKill: blocked.length,
      blockedRanBy: Object.fromEntries([...new Set(blockedRanBy)].map((n) => [n, blockedRanBy.filter((x) => x === n).length])),
      seconds: Math.round(seconds),
    };
    console.log(`four receivers: ${JSON.stringify(figures)}`);
    const errors = receivers.flatMap((r) => r.out().split('\n').filter((l) => l.startsWith('error ')));

    expect(expected.size).toBe(2 * CERTIFICATES);
    expect(figures.deliveries).toBe(2 * CERTIFICATES);
    expect(twice).toEqual([]);
    expect(lost).toEqual([]);
    expect(runs.length).toBe(2 * CERTIFICATES);
    expect(figures.failedForGood).toBe(0);
    expect(errors).toEqual([]);
    // The kill was real and mattered: the doomed receiver had run events, held some when it died,
    // and each of those ran on another receiver; every receiver took part.
    expect(ranByDoomedAtKill).toBeGreaterThan(0);
    expect(blocked.length).toBeGreaterThanOrEqual(3);
    expect(blockedRanBy.filter((name) => name === doomed.name || name === 'nobody')).toEqual([]);
    expect(figures.answered503).toBeGreaterThan(0);
    for (const r of receivers) expect(perReceiver[r.name]).toBeGreaterThan(0);
  });
});
