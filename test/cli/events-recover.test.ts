// `certsvc events recover` (issue 36, "Done when"; issue 41 item 3): the sandbox stands in for the
// service, its retry schedule sped up (timeScale: 7 attempts in about 1.5 s instead of 39 hours).
// An SDK receiver with a fileStore is down through all 7 attempts of 60 deliveries; the CLI then
// forwards each missed issued/sent/failed event, which runs once, and none that ran before the
// outage; a second recover runs nothing (same delivery ids); the service's own late copy of a
// recovered event is answered 2xx and not run. Plus: flags checked before any request (times
// read strictly, a URL with credentials refused), --until bounds the window, --dry-run sends
// nothing, the secret is printed nowhere, exit 1 when a delivery is not 2xx, more events than the
// receiver remembers refused unless stated, and the forwarding paced (a busy receiver's 503/429
// and Retry-After honoured, never more than --concurrency in flight, a budget for the pauses).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createClient, createNodeHandler, DEFAULT_MEMORY_STORE_SIZE, fileStore, memoryStore, signPayload, type CertificateServiceClient, type WebhookEvent } from '@certificate-service/sdk';
import { cliWorld, runCli } from '../support/cli';
import { N8N_VERIFY_MEMORY } from '../../shared/cli/src/events-recover';
import { FIRST_PAUSE_MS, pauseMs } from '../../shared/cli/src/forward';
import { parseTimeFlag } from '../../shared/cli/src/time-flag';
import { MEMORY_DELIVERIES } from '../../n8n/nodes/shared/delivery-memory';

jest.setTimeout(120_000);

const world = cliWorld({ rateLimit: false, timeScale: 0.00001, mailDelayMs: 1 }, 'events-recover-');

interface Receiver {
  url: string;
  down: boolean;
  /** Answer every delivery with this status, as a receiver whose code fails (not a 503 or 429). */
  failWith?: number;
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
    if (r.failWith) return void req.resume().on('end', () => res.writeHead(r.failWith!).end());
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
  let start = '';
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
    start = new Date(Date.now() - 1000).toISOString();
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
    expect(JSON.parse(first.stdout)).toEqual({ found: 62, forwarded: 62, answered2xx: 62, failed: 0, notDelivered: 0 });
    expect(first.code).toBe(0);
    expect(rx.ran.slice(before.length).sort()).toEqual([...missedKeys].sort());
    expect(rx.ran.slice(0, before.length)).toEqual(before);
    expect(first.stdout + first.stderr).not.toContain(secret);
    const firstIds = rx.answered.slice(start).map((a) => a.deliveryId);
    expect(firstIds).toHaveLength(62);

    const second = await runCli(['events', 'recover', '--since', since, '--forward-to', rx.url, '--secret', secret], env);
    expect([second.code, JSON.parse(second.stdout).answered2xx]).toEqual([0, 62]);
    expect(rx.ran).toHaveLength(10 + 60);
    expect(rx.answered.slice(start + firstIds.length).map((a) => a.deliveryId).sort()).toEqual([...firstIds].sort()); // the same ids again

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

  test('--until bounds the window: from before the first issue to the outage, only what ran before it', async () => {
    const lines = async (...window: string[]) => {
      const run = await runCli(['events', 'recover', ...window, '--dry-run'], env);
      expect(run.code).toBe(0);
      return run.stdout.trim().split('\n').slice(0, -1).map((l) => JSON.parse(l) as { type: string; recipientId: string; createdAt: string });
    };
    const bounded = await lines('--since', start, '--until', since);
    expect(bounded.map((l) => `${l.type.slice(12)} ${l.recipientId}`).sort()).toEqual([...before].sort());
    // A recovered failure carries the time its list was read (it stands for every failure until then).
    expect(bounded.filter((l) => l.type !== 'certificate.failed').every((l) => l.createdAt <= since)).toBe(true);
    // Without --until: up to now, the outage's 60 too.
    expect(await lines('--since', start)).toHaveLength(before.length + 60);
  });

  test('a receiver that does not answer 2xx: exit 1, counted as failed, the secret in no output', async () => {
    rx.failWith = 500;
    try {
      const run = await runCli(['events', 'recover', '--since', since, '--forward-to', rx.url, '--events', 'failed'], { ...env, CERTSVC_WEBHOOK_SECRET: secret });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ found: 12, forwarded: 12, answered2xx: 0, failed: 12, notDelivered: 0 });
      expect(run.stderr).toMatch(/run the same command again/);
      expect(run.stdout + run.stderr).not.toContain(secret);
    } finally {
      rx.failWith = undefined;
    }
  });
});

/** A receiver that answers 200 to anything and counts what reached it, and the most in flight at once. */
async function sink(): Promise<{ url: string; requests: () => number; maxInFlight: () => number; close: () => Promise<void> }> {
  let requests = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on('finish', () => inFlight--);
    req.resume().on('end', () => setTimeout(() => (requests++, res.writeHead(200).end()), 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, requests: () => requests, maxInFlight: () => maxInFlight, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A workspace with `n` certificates issued (not sent) after the time returned. */
async function issued(n: number): Promise<{ env: Record<string, string>; since: string }> {
  const ws = world.sb.controls.createWorkspace();
  const c = createClient({ baseUrl: world.sb.baseUrl, apiKey: ws.apiKey });
  const b = (await c.createBatch({ title: 'Many', designId: 'design_classic' })).id;
  const since = new Date(Date.now() - 1000).toISOString();
  for (let i = 0; i < n; i += 100) await c.issueBulk(b, Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ name: `M${i + j}`, email: `m${i + j}@example.com` })));
  return { env: { CERTSVC_API_KEY: ws.apiKey, CERTSVC_BASE_URL: world.sb.baseUrl }, since };
}

describe('more events than the receiver remembers (memoryStore keeps 1,000 keys by default): refused unless stated', () => {
  let w: { env: Record<string, string>; since: string };
  beforeAll(async () => {
    w = await issued(DEFAULT_MEMORY_STORE_SIZE + 1);
  });

  test('refused (exit 2, nothing forwarded) with the count, the reason and what to do; --dry-run still lists them', async () => {
    const rx = await sink();
    try {
      const run = await runCli(['events', 'recover', '--since', w.since, '--forward-to', rx.url, '--secret', 'wh_sec_x'], w.env);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/Found 1001 events from /);
      expect(run.stderr).toMatch(/the window holds 1,001 events, more than the 1,000 keys the smallest receiver memory holds/);
      expect(run.stderr).toMatch(/may run an event twice when the service's late copy of it arrives/);
      expect(run.stderr).toMatch(/--since, --until.*--batch.*--events.*--receiver-memory 20000 for n8n's Delivery: Verify.*--yes/);
      expect([run.stdout, rx.requests()]).toEqual(['', 0]);
      const stated = await runCli(['events', 'recover', '--since', w.since, '--forward-to', rx.url, '--secret', 'wh_sec_x', '--receiver-memory', '1000'], w.env);
      expect([stated.code, rx.requests()]).toEqual([2, 0]);
      expect(stated.stderr).toMatch(/more than the 1,000 keys --receiver-memory says the receiver holds/);
      const dry = await runCli(['events', 'recover', '--since', w.since, '--dry-run'], w.env);
      expect([dry.code, JSON.parse(dry.stdout.trim().split('\n').at(-1)!)]).toEqual([0, { found: 1001, forwarded: 0, answered2xx: 0, failed: 0, dryRun: true }]);
    } finally {
      await rx.close();
    }
  });

  test.each([[['--receiver-memory', '1001']], [['--yes']]])('%j forwards them all, 4 in flight at most by default', async (optOut) => {
    const rx = await sink();
    try {
      const run = await runCli(['events', 'recover', '--since', w.since, '--forward-to', rx.url, '--secret', 'wh_sec_x', ...optOut], w.env);
      expect([run.code, JSON.parse(run.stdout)]).toEqual([0, { found: 1001, forwarded: 1001, answered2xx: 1001, failed: 0, notDelivered: 0 }]);
      expect(rx.requests()).toBe(1001);
      expect(rx.maxInFlight()).toBeLessThanOrEqual(4);
      expect(rx.maxInFlight()).toBeGreaterThan(1);
    } finally {
      await rx.close();
    }
  });

  test("the n8n memory the message names is n8n's", () => {
    expect(N8N_VERIFY_MEMORY).toBe(MEMORY_DELIVERIES);
  });
});

describe('pacing: a busy receiver is waited for, never more than --concurrency in flight', () => {
  const SECRET = 'wh_sec_paced';

  /** A real SDK receiver behind a front that answers busy first (`busy`, in order), counts requests in flight, and logs every answer. */
  async function paced(busy: ((now: number) => { status: number; retryAfter: string })[], handleMs = 25) {
    const ran: string[] = [];
    const handler = createNodeHandler({ secret: SECRET, store: memoryStore(), onEvent: (e: WebhookEvent) => void ran.push(e.data.id) });
    const log: { deliveryId: string; at: number; status: number; retryAfter?: string }[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const server = http.createServer((req, res) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      const deliveryId = String(req.headers['x-service-delivery']);
      res.on('finish', () => inFlight--);
      const next = busy.shift();
      if (next) {
        const answer = next(Date.now());
        log.push({ deliveryId, at: Date.now(), ...answer });
        return void req.resume().on('end', () => res.writeHead(answer.status, { 'Retry-After': answer.retryAfter }).end());
      }
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => (log.push({ deliveryId, at: Date.now(), status: res.statusCode }), end(...args))) as typeof res.end;
      setTimeout(() => void handler(req, res), handleMs); // slow enough that requests overlap
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
      ran,
      log,
      maxInFlight: () => maxInFlight,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  test('503 and 429 with Retry-After (seconds, HTTP date): each waited out, then every event answered 2xx exactly once; at most --concurrency 3 in flight', async () => {
    const w = await issued(20);
    // The first 3 (all in flight at once) ask for more than the 1 s the forwarder waits unasked.
    const seconds = () => ({ status: 503, retryAfter: '2' });
    const date = (now: number) => ({ status: 429, retryAfter: new Date(now + 3000).toUTCString() }); // 2-3 s: the date has whole seconds
    const rx = await paced([seconds, date, seconds]);
    try {
      const run = await runCli(['events', 'recover', '--since', w.since, '--forward-to', rx.url, '--secret', SECRET, '--concurrency', '3'], w.env);
      expect([run.code, JSON.parse(run.stdout)]).toEqual([0, { found: 20, forwarded: 20, answered2xx: 20, failed: 0, notDelivered: 0 }]);
      expect(rx.maxInFlight()).toBe(3);
      // Every delivery answered 2xx exactly once, and each event ran once.
      const ok = rx.log.filter((a) => a.status >= 200 && a.status < 300).map((a) => a.deliveryId);
      expect([ok.length, new Set(ok).size]).toEqual([20, 20]);
      expect([rx.ran.length, new Set(rx.ran).size]).toEqual([20, 20]);
      // Each busy answer was waited out: the same delivery came back no sooner than it asked.
      const busy = rx.log.filter((a) => a.retryAfter);
      expect(busy.map((a) => a.status)).toEqual([503, 429, 503]);
      for (const b of busy) {
        const again = rx.log.find((a) => a.deliveryId === b.deliveryId && a.at > b.at)!;
        const asked = /^\d+$/.test(b.retryAfter!) ? b.at + Number(b.retryAfter) * 1000 : Date.parse(b.retryAfter!);
        expect(again.at).toBeGreaterThanOrEqual(asked - 20);
      }
    } finally {
      await rx.close();
    }
  });

  test('a receiver busy for longer than --max-wait: the rest reported not delivered, exit 1', async () => {
    const w = await issued(5);
    const rx = await paced(Array.from({ length: 100 }, () => () => ({ status: 503, retryAfter: '1' })));
    try {
      const run = await runCli(['events', 'recover', '--since', w.since, '--forward-to', rx.url, '--secret', SECRET, '--concurrency', '2', '--max-wait', '2.5s'], w.env);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ found: 5, answered2xx: 0, failed: 0, notDelivered: 5 });
      expect(run.stderr).toMatch(/longer than --max-wait \(2.5 s\) in all: 5 deliveries were not delivered/);
      expect(rx.ran).toEqual([]);
      // Two pauses of 1 s fit in 2.5 s; the third would not: three rounds of 2 requests.
      expect(rx.log).toHaveLength(6);
    } finally {
      await rx.close();
    }
  });

  test.each<[string, string | undefined, number, number]>([
    ['seconds', '7', 1, 7_000],
    ['an HTTP date', new Date(Date.parse('2026-11-27T08:00:30Z')).toUTCString(), 1, 30_000],
    ['more than the cap', '3600', 1, 60_000],
    ['0 (no spinning)', '0', 1, FIRST_PAUSE_MS],
    ['none: 1 s, doubling', undefined, 1, 1_000],
    ['none, third time', undefined, 3, 4_000],
    ['none, many times: the cap', undefined, 20, 60_000],
    ['unreadable', 'soon', 2, 2_000],
  ])('the pause for Retry-After %s', (_case, header, streak, ms) => {
    expect(pauseMs(header, streak, Date.parse('2026-11-27T08:00:00Z'))).toBe(ms);
  });
});

describe('flags are checked before any request (exit 2)', () => {
  test.each([
    [['--since', 'yesterday', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x'], /--since: give a duration/],
    [['--since', '72h', '--forward-to', 'ftp://x', '--secret', 'wh_sec_x'], /--forward-to/],
    [['--since', '72h', '--forward-to', 'http://127.0.0.1:9/'], /--secret/],
    [['--since', '72h', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x', '--events', 'viewed'], /viewed cannot be recovered/],
    [['--since', '72h', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x', '--concurrency', '0'], /--concurrency: give a whole number from 1 to 32/],
    [['--since', '72h', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x', '--max-wait', 'forever'], /--max-wait: give a duration/],
    [['--since', '72h', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x', '--receiver-memory', '20,000'], /--receiver-memory: give a whole number of at least 1/],
    [['--since', '72h', '--until', '73h', '--forward-to', 'http://127.0.0.1:9/', '--secret', 'wh_sec_x'], /Invalid "--until": .* is before --since/],
  ])('%j', async (args, message) => {
    const before = world.sb.controls.counters().requests.total;
    const run = await runCli(['events', 'recover', ...args], { CERTSVC_API_KEY: 'sk_test_whatever', CERTSVC_BASE_URL: world.sb.baseUrl });
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(message)]);
    expect(world.sb.controls.counters().requests.total).toBe(before);
  });

  test('--help gives the defaults the README gives', async () => {
    const help = (await runCli(['events', 'recover', '--help'], {})).stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(/--until <time> .*\(default now\)/);
    expect(help).toMatch(/--concurrency <n> .*\(default 4\)/);
    expect(help).toMatch(/--max-wait <duration> .*\(default 5m\)/);
    expect(help).toMatch(/--receiver-memory <keys> .*Verify: 20,000 per process/);
    expect(help).toMatch(/--yes .*\(default limit 1,000\)/);
  });

  test('a --forward-to URL with a user name and password: refused, the password in no output', async () => {
    const before = world.sb.controls.counters().requests.total;
    const run = await runCli(['events', 'recover', '--since', '72h', '--forward-to', 'https://hooks:s3cr3t-pass@127.0.0.1:9/hook', '--secret', 'wh_sec_x'], { CERTSVC_API_KEY: 'sk_test_whatever', CERTSVC_BASE_URL: world.sb.baseUrl });
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/^certsvc: --forward-to: the URL carries a user name or password \(user:pass@\); give it without them/)]);
    expect(run.stdout + run.stderr).not.toMatch(/s3cr3t-pass|hooks/);
    expect(world.sb.controls.counters().requests.total).toBe(before);
  });

  const now = Date.parse('2026-11-27T08:00:00Z');
  test.each<[string, number]>([
    ['72h', now - 72 * 3600_000],
    ['3d', now - 3 * 86400_000],
    ['90m', now - 90 * 60_000],
    ['1.5H', now - 90 * 60_000],
    [' 2026-11-25 ', Date.parse('2026-11-25T00:00:00Z')],
    ['2024-02-29', Date.parse('2024-02-29T00:00:00Z')],
    ['2026-11-25T08:00Z', Date.parse('2026-11-25T08:00:00Z')],
    ['2026-11-25T08:00:00Z', Date.parse('2026-11-25T08:00:00Z')],
    ['2026-11-25T08:00:00.250Z', Date.parse('2026-11-25T08:00:00.250Z')],
    ['2026-11-25T09:30:00+01:30', Date.parse('2026-11-25T08:00:00Z')],
    ['2026-11-25T03:00:00-05:00', Date.parse('2026-11-25T08:00:00Z')],
  ])('a valid time: %j', (text, at) => {
    expect(parseTimeFlag('--since', text, now)).toBe(at);
  });

  const FORMS = 'a duration back from now (72h, 3d, 90m) or an ISO 8601 time: a date (2026-11-27, midnight UTC) or a date and time with its zone (2026-11-27T08:00:00Z, 2026-11-27T09:00+01:00)';
  const NOT_A_DAY = (d: string) => `is not a real time: ${d} is not a day of the calendar`;
  test.each<[string, string]>([
    ['2026-11-27junk', FORMS],
    ['2026-02-30', NOT_A_DAY('2026-02-30')],
    ['2025-02-29', NOT_A_DAY('2025-02-29')],
    ['2026-13-01', NOT_A_DAY('2026-13-01')],
    ['2026-11-00', NOT_A_DAY('2026-11-00')],
    ['2026-04-31T08:00Z', NOT_A_DAY('2026-04-31')],
    ['2026-11-27T08:00:00', FORMS], // no zone: whose 08:00?
    ['2026-11-27T08:00', FORMS],
    ['2026-11-27 08:00Z', FORMS],
    ['2026-11-27T24:00Z', 'is not a real time: the time of day runs from 00:00:00 to 23:59:59'],
    ['2026-11-27T08:60Z', 'is not a real time: the time of day'],
    ['2026-11-27T08:00:60Z', 'is not a real time: the time of day'],
    ['2026-11-27T08:00+24:00', 'is not a real time: the zone runs from -23:59 to +23:59'],
    ['2026-11-27T08:00+0100', FORMS],
    ['27/11/2026', FORMS],
    ['Nov 27 2026', FORMS],
    ['Fri, 27 Nov 2026 08:00:00 GMT', FORMS],
    ['1764230400000', FORMS],
    ['2026-11', FORMS],
    ['2026', FORMS],
    ['yesterday', FORMS],
    ['72', FORMS],
    ['-3d', FORMS],
    ['3w', FORMS],
    ['', FORMS],
  ])('an invalid time, %j: exit 2 naming the flag, before any request', async (text, why) => {
    const before = world.sb.controls.counters().requests.total;
    for (const flag of ['--since', '--until']) {
      const window = flag === '--since' ? ['--since', text] : ['--since', '72h', '--until', text];
      const run = await runCli(['events', 'recover', ...window, '--dry-run'], { CERTSVC_API_KEY: 'sk_test_whatever', CERTSVC_BASE_URL: world.sb.baseUrl });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^certsvc: ${flag}: `));
      expect(run.stderr).toContain(`"${text}"`);
      expect(run.stderr).toContain(why);
    }
    expect(world.sb.controls.counters().requests.total).toBe(before);
  });

  test('--since in the future is a slip (exit 2); --until in the future is the present', async () => {
    const env = { CERTSVC_API_KEY: world.sb.controls.createWorkspace().apiKey, CERTSVC_BASE_URL: world.sb.baseUrl };
    const future = await runCli(['events', 'recover', '--since', '2099-01-01', '--dry-run'], env);
    expect([future.code, future.stderr]).toEqual([2, expect.stringMatching(/Invalid "--since": 2099-01-01T00:00:00.000Z is in the future/)]);
    const later = await runCli(['events', 'recover', '--since', '1h', '--until', '2099-01-01', '--dry-run'], env);
    expect([later.code, later.stderr]).toEqual([0, expect.stringMatching(/^Found 0 events from .* to 2099-01-01T00:00:00.000Z/)]);
  });
});
