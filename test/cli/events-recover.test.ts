// `certsvc events recover` (issue 36, "Done when"): the sandbox stands in for the service, its
// retry schedule sped up (timeScale: 7 attempts in about 1.5 s instead of 39 hours). An SDK
// receiver with a fileStore is down through all 7 attempts of 60 deliveries; the CLI then
// forwards each missed issued/sent/failed event, which runs once, and none that ran before the
// outage; a second recover runs nothing (same delivery ids); the service's own late copy of a
// recovered event is answered 2xx and not run. Plus: flags checked before any request,
// --dry-run sends nothing, the secret is printed nowhere, exit 1 when a delivery is not 2xx.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createClient, createNodeHandler, fileStore, signPayload, type CertificateServiceClient, type WebhookEvent } from '@certificate-service/sdk';
import { cliWorld, runCli } from '../support/cli';
import { parseSince } from '../../shared/cli/src/events-recover';

jest.setTimeout(120_000);

const world = cliWorld({ rateLimit: false, timeScale: 0.00001, mailDelayMs: 1 }, 'events-recover-');

interface Receiver {
  url: string;
  down: boolean;
  /** What the receiver's onEvent ran: `<type> <recipient id>`, in order. */
  ran: string[];
  /** Deliveries that reached the receiver while it was down (its load balancer's log): body, headers. */
  missed: { body: string; deliveryId: string }[];
  /** X-Service-Delivery of every delivery answered while up. */
  answered: { deliveryId: string; status: number }[];
  close(): Promise<void>;
}

async function receiver(secret: () => string, storePath: string): Promise<Receiver> {
  let handler: ReturnType<typeof createNodeHandler> | undefined;
  const r: Receiver = { url: '', down: false, ran: [], missed: [], answered: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    if (r.down) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        r.missed.push({ body: Buffer.concat(chunks).toString('utf8'), deliveryId: String(req.headers['x-service-delivery']) });
        res.writeHead(503).end(); // down: the service retries
      });
      return;
    }
    handler ??= createNodeHandler({ secret: secret(), store: fileStore(storePath), onEvent: (e: WebhookEvent) => void r.ran.push(`${e.type.slice(12)} ${e.data.id}`) });
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<typeof res.end>) => (r.answered.push({ deliveryId: String(req.headers['x-service-delivery']), status: res.statusCode }), end(...args))) as typeof res.end;
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  r.close = () => new Promise((resolve) => server.close(() => resolve()));
  return r;
}

describe('a receiver down through all 7 attempts of 60 deliveries', () => {
  let client: CertificateServiceClient;
  let env: Record<string, string>;
  let rx: Receiver;
  let secret = '';
  let since = '';
  let before: string[] = [];
  let missedKeys: string[] = [];
  let batchId = '';

  beforeAll(async () => {
    const ws = world.sb.controls.createWorkspace();
    env = { CERTSVC_API_KEY: ws.apiKey, CERTSVC_BASE_URL: world.sb.baseUrl };
    client = createClient({ baseUrl: world.sb.baseUrl, apiKey: ws.apiKey });
    rx = await receiver(() => secret, path.join(world.dir, 'claims.jsonl'));
    const sub = await client.createSubscription({ url: rx.url, events: ['certificate.issued', 'certificate.sent', 'certificate.failed'] });
    secret = sub.secret;
    const mine = (n: number, outcome: string) => async () =>
      world.sb.controls.waitForDeliveries((log) => log.filter((a) => a.subscriptionId === sub.id && a.outcome === outcome).length >= n, 60_000);
    const b = (batchId = (await client.createBatch({ title: 'Outage', designId: 'design_classic' })).id);
    const people = (n: number, domain: string, tag: string) => Array.from({ length: n }, (_, i) => ({ name: `${tag}${i}`, email: `${tag}${i}@${domain}` }));
    // Before the outage: 3 sent, 2 failed (10 deliveries), all run.
    await client.issueBulk(b, [...people(3, 'example.com', 'early'), ...people(2, 'bounce.test', 'early-bounce')], { send: true });
    await mine(10, 'succeeded')();
    before = [...rx.ran];
    // The outage: 20 sent and 10 failed certificates, 60 deliveries, each tried 7 times.
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a clear second after what ran
    since = new Date().toISOString();
    rx.down = true;
    await client.issueBulk(b, [...people(20, 'example.com', 'late'), ...people(10, 'bounce.test', 'late-bounce')], { send: true });
    const log = await mine(60, 'failed')();
    rx.down = false;
    const failed = log.filter((a) => a.subscriptionId === sub.id && a.outcome === 'failed');
    expect(failed.every((a) => a.attempt === 7)).toBe(true);
    missedKeys = world.sb.controls
      .events()
      .filter((e) => failed.some((a) => a.eventId === e.id))
      .map((e) => `${e.type.slice(12)} ${e.recipientId}`);
  });
  afterAll(() => rx.close());

  test('before: 10 ran; the outage: 60 deliveries failed after 7 attempts each, none ran', () => {
    expect(before).toHaveLength(10);
    expect(new Set(missedKeys).size).toBe(60);
    expect(rx.missed).toHaveLength(60 * 7);
  });

  test('recover runs each missed event once and none that ran before; a second recover runs nothing; the late copy is 2xx and not run', async () => {
    const start = rx.answered.length;
    const first = await runCli(['events', 'recover', '--since', since, '--forward-to', rx.url, '--secret', secret], env);
    // Found: the 60 missed, and the 2 failures from before (issued within 7 days of --since): a duplicate for the receiver.
    expect(JSON.parse(first.stdout)).toEqual({ found: 62, forwarded: 62, answered2xx: 62, failed: 0 });
    expect(first.code).toBe(0);
    expect(rx.ran.slice(before.length).sort()).toEqual([...missedKeys].sort());
    expect(rx.ran.slice(0, before.length)).toEqual(before);
    expect(first.stdout + first.stderr).not.toContain(secret);
    const firstIds = rx.answered.slice(start).map((a) => a.deliveryId);
    expect(firstIds).toHaveLength(62);

    const second = await runCli(['events', 'recover', '--since', since, '--forward-to', rx.url, '--secret', secret], env);
    expect([second.code, JSON.parse(second.stdout).answered2xx]).toEqual([0, 62]);
    expect(rx.ran).toHaveLength(10 + 60);
    expect(rx.answered.slice(start + firstIds.length).map((a) => a.deliveryId)).toEqual(firstIds); // the same ids again

    // The service's own late copy of a missed delivery (the same body and delivery id, signed anew).
    const late = rx.missed[0];
    const res = await fetch(rx.url, { method: 'POST', body: late.body, headers: { ...signPayload(secret, late.body), 'X-Service-Delivery': late.deliveryId, 'Content-Type': 'application/json' } });
    expect([res.status, await res.json()]).toEqual([200, { received: true, duplicate: true }]);
    expect(rx.ran).toHaveLength(70);
  });

  test('--dry-run lists what would be forwarded and sends nothing', async () => {
    const answered = rx.answered.length;
    const run = await runCli(['events', 'recover', '--since', since, '--dry-run', '--events', 'issued'], env);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toEqual({ found: 30, forwarded: 0, answered2xx: 0, failed: 0, dryRun: true });
    expect(lines.slice(0, -1).every((l) => l.type === 'certificate.issued' && /^whd_r/.test(l.deliveryId))).toBe(true);
    expect(rx.answered).toHaveLength(answered);
    expect(run.code).toBe(0);
    // --batch names the batches read (here the only one, and one that has none of these events).
    const other = (await client.createBatch({ title: 'Empty', designId: 'design_classic' })).id;
    const named = await runCli(['events', 'recover', '--since', since, '--dry-run', '--batch', batchId, other, '--events', 'sent,failed'], env);
    expect(JSON.parse(named.stdout.trim().split('\n').at(-1)!)).toMatchObject({ found: 32 });
    expect(named.stderr).toMatch(/\(4 list requests: every batch named read whole/);
  });

  test('a receiver that does not answer 2xx: exit 1, counted as failed, the secret in no output', async () => {
    rx.down = true;
    try {
      const run = await runCli(['events', 'recover', '--since', since, '--forward-to', rx.url, '--events', 'failed'], { ...env, CERTSVC_WEBHOOK_SECRET: secret });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ found: 12, forwarded: 12, answered2xx: 0, failed: 12 });
      expect(run.stderr).toMatch(/run the same command again/);
      expect(run.stdout + run.stderr).not.toContain(secret);
    } finally {
      rx.down = false;
    }
  });

  test('more events than n8n keeps across restarts: a warning saying what it means', async () => {
    const ws = world.sb.controls.createWorkspace();
    const c = createClient({ baseUrl: world.sb.baseUrl, apiKey: ws.apiKey });
    const b = (await c.createBatch({ title: 'Many', designId: 'design_classic' })).id;
    const t0 = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 3; i++) await c.issueBulk(b, Array.from({ length: 70 }, (_, j) => ({ name: `M${i}-${j}`, email: `m${i}-${j}@example.com` })));
    const sink = http.createServer((_req, res) => res.writeHead(200).end());
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/`;
      const run = await runCli(['events', 'recover', '--since', t0, '--forward-to', url, '--secret', 'wh_sec_n8n'], { CERTSVC_API_KEY: ws.apiKey, CERTSVC_BASE_URL: world.sb.baseUrl });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/forwarding 210 events, more than the 200 claims n8n keeps across restarts/);
    } finally {
      await new Promise((resolve) => sink.close(resolve));
    }
  });
});

describe('flags are checked before any request (exit 2)', () => {
  test.each([
    [['--since', 'yesterday', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x'], /--since: give a duration/],
    [['--since', '72h', '--forward-to', 'ftp://x', '--secret', 'wh_sec_x'], /--forward-to/],
    [['--since', '72h', '--forward-to', 'http://127.0.0.1:9/'], /--secret/],
    [['--since', '72h', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x', '--events', 'viewed'], /viewed cannot be recovered/],
  ])('%j', async (args, message) => {
    const before = world.sb.controls.counters().requests.total;
    const run = await runCli(['events', 'recover', ...args], { CERTSVC_API_KEY: 'sk_test_whatever', CERTSVC_BASE_URL: world.sb.baseUrl });
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(message)]);
    expect(world.sb.controls.counters().requests.total).toBe(before);
  });

  test('--since: durations back from now, or an ISO time', () => {
    const now = Date.parse('2026-11-27T08:00:00Z');
    expect(parseSince('72h', now)).toBe(now - 72 * 3600_000);
    expect(parseSince('3d', now)).toBe(now - 3 * 86400_000);
    expect(parseSince('2026-11-25T08:00:00Z', now)).toBe(Date.parse('2026-11-25T08:00:00Z'));
    expect(() => parseSince('2027-01-01T00:00:00Z', now)).toThrow(/in the future/);
  });
});
