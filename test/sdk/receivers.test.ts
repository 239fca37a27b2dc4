// The webhook receivers on the real frameworks (express, fastify, hono, Node's http and Web
// Request): the same table of deliveries through each, a body a JSON parser already read
// answered 400 NOT_RAW_BODY, and real deliveries from the sandbox, duplicates handled once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { createClient, createReceiver, NotRawBodyError, NotRecordedError, createExpressHandler, createFastifyHandler, createNodeHandler, createWebHandler, fastifyReceiver, signPayload, type DeliveryStore, type ReceiverOptions, type WebhookEvent } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { freePort } from '../support/net';

const SECRET = 'wh_sec_receiver_test_0123456789';

interface Answer {
  status: number;
  body: { received?: boolean; duplicate?: boolean; notCertificate?: boolean; error?: string; message?: string };
  /** The Retry-After header, when there is one. */
  retryAfter?: string;
}
type Send = (path: string, body: string, headers: Record<string, string>) => Promise<Answer>;

interface Harness {
  /** Where a raw-body receiver listens, and where one sits behind a JSON parser. */
  raw: string;
  parsed: string;
  send: Send;
  /** An http URL the sandbox can deliver to, when the framework listens on a socket. */
  url?: string;
  close(): Promise<void>;
}

function delivery(id = 'whe_1', type = 'certificate.issued') {
  const body = JSON.stringify({ id, type, createdAt: '2026-11-23T00:00:00.000Z', data: { id: 'rec_1', email: 'ada@example.com', certificateId: 'CERT-2026-000001-0001' } });
  return { body, headers: { 'Content-Type': 'application/json', 'X-Service-Delivery': `whd_${id}`, ...signPayload(SECRET, body) } };
}

const withRetryAfter = (res: Response, body: Answer['body']): Answer => {
  const retryAfter = res.headers.get('retry-after');
  return { status: res.status, body, ...(retryAfter === null ? {} : { retryAfter }) };
};

const viaFetch =
  (origin: string): Send =>
  async (path, body, headers) => {
    const res = await fetch(origin + path, { method: 'POST', body, headers });
    return withRetryAfter(res, (await res.json()) as Answer['body']);
  };

const listen = (server: http.Server, port = 0) =>
  new Promise<string>((resolve) => server.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const closeServer = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

const frameworks: Record<string, (options: ReceiverOptions, port?: number) => Promise<Harness>> = {
  'node http': async (options, port) => {
    const handler = createNodeHandler(options);
    const server = http.createServer((req, res) => {
      if (req.url === '/parsed') {
        // What a JSON body parser leaves behind: an object, not the bytes that were signed.
        let text = '';
        req.on('data', (c) => (text += c)).on('end', () => void handler(Object.assign(req, { body: JSON.parse(text) }), res));
      } else void handler(req, res);
    });
    const origin = await listen(server, port);
    return { raw: '/hooks', parsed: '/parsed', send: viaFetch(origin), url: `${origin}/hooks`, close: () => closeServer(server) };
  },
  express: async (options, port) => {
    const app = express();
    app.post('/hooks', express.raw({ type: 'application/json' }), createExpressHandler(options));
    app.post('/parsed', express.json(), createExpressHandler(options));
    const server = http.createServer(app);
    const origin = await listen(server, port);
    return { raw: '/hooks', parsed: '/parsed', send: viaFetch(origin), url: `${origin}/hooks`, close: () => closeServer(server) };
  },
  fastify: async (options, port = 0) => {
    const app = Fastify();
    await app.register(fastifyReceiver(options), { prefix: '/hooks' });
    app.post('/parsed', createFastifyHandler(options)); // behind Fastify's default JSON parser
    app.post('/other', async (request) => ({ echoed: request.body })); // the app's own JSON routes keep parsing
    const origin = await app.listen({ port, host: '127.0.0.1' });
    const other = await fetch(`${origin}/other`, { method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } });
    expect(await other.json()).toEqual({ echoed: { a: 1 } });
    return { raw: '/hooks', parsed: '/parsed', send: viaFetch(origin), url: `${origin}/hooks`, close: () => app.close() };
  },
  hono: async (options) => {
    const app = new Hono();
    const handler = createWebHandler(options);
    app.post('/hooks', (c) => handler(c.req.raw));
    app.post('/parsed', async (c) => {
      await c.req.json();
      return handler(c.req.raw);
    });
    const send: Send = async (path, body, headers) => {
      const res = await app.request(path, { method: 'POST', body, headers });
      return withRetryAfter(res, (await res.json()) as Answer['body']);
    };
    return { raw: '/hooks', parsed: '/parsed', send, close: async () => {} };
  },
  'Web Request': async (options) => {
    const handler = createWebHandler(options);
    const send: Send = async (path, body, headers) => {
      const request = new Request(`http://receiver.test${path}`, { method: 'POST', body, headers });
      if (path === '/parsed') await request.json(); // as a route handler that read the JSON first
      const res = await handler(request);
      return withRetryAfter(res, (await res.json()) as Answer['body']);
    };
    return { raw: '/hooks', parsed: '/parsed', send, close: async () => {} };
  },
};

/** The fix each framework's receiver names when a parser read the body first. */
const PARSED_BODY_FIX: Record<string, RegExp> = {
  'node http': /express\.raw\(\{ type: 'application\/json' \}\)/,
  express: /express\.raw\(\{ type: 'application\/json' \}\)/,
  fastify: /app\.register\(fastifyReceiver\(/,
  hono: /do not read its body/,
  'Web Request': /do not read its body/,
};

describe.each(Object.keys(frameworks))('%s receiver', (name) => {
  let events: WebhookEvent[];
  let claimed: string[];
  let failNext: boolean;
  /** When set, onEvent waits for it (an attempt still being handled). */
  let hold: Promise<void> | undefined;
  let notCertificate: string[];
  let told: unknown[];
  let h: Harness;
  // An async store, as a Redis- or SQL-backed one would be.
  const store = (): DeliveryStore => {
    const states = new Map<string, 'pending' | 'done'>();
    return {
      claim: async (id) => {
        claimed.push(id);
        const state = states.get(id);
        if (state) return state;
        states.set(id, 'pending');
        return 'taken';
      },
      settle: async (id, ok) => void (ok ? states.set(id, 'done') : states.delete(id)),
    };
  };
  beforeEach(async () => {
    events = [];
    claimed = [];
    failNext = false;
    hold = undefined;
    notCertificate = [];
    told = [];
    h = await frameworks[name]({
      secret: ['wh_sec_old_secret_000000000', SECRET],
      store: store(),
      onError: (error) => void told.push(error),
      onNotCertificate: (envelope, why, deliveryId) => void notCertificate.push(`${deliveryId} ${envelope.type}: ${why}`),
      onEvent: async (event) => {
        if (hold) await hold;
        if (failNext) {
          failNext = false;
          throw new Error('database down');
        }
        events.push(event);
      },
    });
  });
  afterEach(() => h.close());

  test('a signed delivery: 200, the typed event handed over once; its duplicate: 200 without a second call', async () => {
    const d = delivery();
    expect(await h.send(h.raw, d.body, d.headers)).toEqual({ status: 200, body: { received: true } });
    expect(events.map((e) => [e.id, e.type, e.data.certificateId])).toEqual([['whe_1', 'certificate.issued', 'CERT-2026-000001-0001']]);
    expect(await h.send(h.raw, d.body, d.headers)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(events).toHaveLength(1);
    expect(claimed).toEqual(['rec_1', 'rec_1']);
  });

  test('a body a JSON parser already read: 400 NOT_RAW_BODY telling to use the raw body', async () => {
    const d = delivery();
    const answer = await h.send(h.parsed, d.body, d.headers);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('NOT_RAW_BODY');
    expect(answer.body.message).toMatch(/raw request body/);
    expect(events).toEqual([]);
    expect(claimed).toEqual([]);
    // The app's wiring, not the sender: onError is told why it answered 400, with this framework's fix.
    expect(told).toHaveLength(1);
    expect(told[0]).toBeInstanceOf(NotRawBodyError);
    expect((told[0] as Error).message).toMatch(/^Answered 400 NOT_RAW_BODY: the request body was already parsed before the receiver/);
    expect((told[0] as Error).message).toMatch(PARSED_BODY_FIX[name]);
  });

  test.each([
    ['a wrong secret', (d: ReturnType<typeof delivery>) => ({ ...d.headers, ...signPayload('wh_sec_someone_else_000000', d.body) }), 401, 'NO_MATCHING_SIGNATURE'],
    ['no signature', (_d: ReturnType<typeof delivery>) => ({ 'Content-Type': 'application/json' }), 401, 'MISSING_SIGNATURE'],
    ['a stale timestamp', (d: ReturnType<typeof delivery>) => ({ ...d.headers, ...signPayload(SECRET, d.body, Math.floor(Date.now() / 1000) - 3600) }), 401, 'TIMESTAMP_TOO_OLD'],
    ['a changed body', (d: ReturnType<typeof delivery>) => d.headers, 401, 'NO_MATCHING_SIGNATURE', ' '],
  ])('%s: 401, nothing handed over or claimed', async (_what, headers, status, reason, extra = '') => {
    const d = delivery();
    const answer = await h.send(h.raw, d.body + extra, headers(d));
    expect(answer).toMatchObject({ status, body: { error: reason } });
    expect(events).toEqual([]);
    expect(claimed).toEqual([]);
  });

  test('a signed body that is not an event: 400 INVALID_PAYLOAD', async () => {
    const body = '{"hello":"world"}';
    const answer = await h.send(h.raw, body, { 'Content-Type': 'application/json', ...signPayload(SECRET, body) });
    expect(answer).toMatchObject({ status: 400, body: { error: 'INVALID_PAYLOAD' } });
  });

  test.each([
    ['handled', false, { status: 200, body: { received: true, duplicate: true } }, 1],
    ['failed', true, { status: 200, body: { received: true } }, 1],
  ])('a copy while the first attempt is still in onEvent: 503 + Retry-After, nothing run; the first %s decides', async (_what, fails, later, runs) => {
    const d = delivery('whe_3');
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    failNext = fails;
    const first = h.send(h.raw, d.body, d.headers);
    while (claimed.length === 0) await new Promise((r) => setTimeout(r, 1));
    expect(await h.send(h.raw, d.body, d.headers)).toEqual({
      status: 503,
      retryAfter: '60',
      body: { error: 'DELIVERY_PENDING', message: expect.stringMatching(/still being handled/) },
    });
    hold = undefined;
    release();
    expect((await first).status).toBe(fails ? 500 : 200);
    expect(await h.send(h.raw, d.body, d.headers)).toEqual(later);
    expect(events).toHaveLength(runs);
  });

  test.each([
    ['data is []', []],
    ['data is {}', {}],
  ])('a signed envelope whose %s: 200 notCertificate, never handed to onEvent, told to onNotCertificate, nothing claimed', async (_what, data) => {
    const body = JSON.stringify({ id: 'whe_t', type: 'certificate.issued', createdAt: '2026-11-23T00:00:00.000Z', data });
    const headers = { 'Content-Type': 'application/json', 'X-Service-Delivery': 'whd_t', ...signPayload(SECRET, body) };
    expect(await h.send(h.raw, body, headers)).toEqual({ status: 200, body: { received: true, notCertificate: true } });
    expect(events).toEqual([]);
    expect(claimed).toEqual([]);
    expect(notCertificate).toEqual([`whd_t certificate.issued: ${Array.isArray(data) ? 'data is an array, not a recipient' : 'data has no recipient id'}`]);
  });

  test('onEvent throws: 500, and the retry of the same delivery is handled (the claim was released)', async () => {
    const d = delivery('whe_2', 'certificate.sent');
    failNext = true;
    expect((await h.send(h.raw, d.body, d.headers)).status).toBe(500);
    expect(events).toEqual([]);
    expect(await h.send(h.raw, d.body, d.headers)).toEqual({ status: 200, body: { received: true } });
    expect(events.map((e) => e.type)).toEqual(['certificate.sent']);
  });
});

describe('an app-wide express.json() in front of the receiver (the common Express setup)', () => {
  const appWide = async (options: ReceiverOptions) => {
    const app = express();
    app.use(express.json());
    app.post('/hooks/certificates', createExpressHandler(options));
    const server = http.createServer(app);
    return { origin: await listen(server), close: () => closeServer(server) };
  };

  test('every delivery answers 400 NOT_RAW_BODY, and a custom onError is told why and how to fix it', async () => {
    const told: unknown[] = [];
    const events: WebhookEvent[] = [];
    const { origin, close } = await appWide({ secret: SECRET, onEvent: (e) => void events.push(e), onError: (error, event) => void told.push([error, event]) });
    try {
      const d = delivery();
      const res = await fetch(`${origin}/hooks/certificates`, { method: 'POST', body: d.body, headers: d.headers });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'NOT_RAW_BODY' });
      expect(told).toHaveLength(1);
      const [error, event] = told[0] as [Error, unknown];
      expect(error).toBeInstanceOf(NotRawBodyError);
      expect(error.message).toBe(
        "Answered 400 NOT_RAW_BODY: the request body was already parsed before the receiver, so its signature cannot be checked (it covers the exact bytes sent). In Express, give this route express.raw({ type: 'application/json' }) before the receiver, and keep an app-wide express.json() off it (register it after this route, or skip this path).",
      );
      expect(event).toBeUndefined();
      expect(events).toEqual([]);
    } finally {
      await close();
    }
  });

  test('with the default onError, console.error says it (never the body or the secret)', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { origin, close } = await appWide({ secret: SECRET, onEvent: () => {} });
    try {
      const d = delivery();
      expect((await fetch(`${origin}/hooks/certificates`, { method: 'POST', body: d.body, headers: d.headers })).status).toBe(400);
      expect(error).toHaveBeenCalledTimes(1);
      const printed = error.mock.calls[0].map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
      expect(printed).toMatch(/^Certificate Service receiver: Answered 400 NOT_RAW_BODY: .*express\.raw\(\{ type: 'application\/json' \}\)/);
      expect(printed).not.toContain(SECRET);
      expect(printed).not.toContain('ada@example.com');
    } finally {
      error.mockRestore();
      await close();
    }
  });

  test('the fix works: express.raw on the route, registered before the app-wide express.json()', async () => {
    const events: WebhookEvent[] = [];
    const app = express();
    app.post('/hooks/certificates', express.raw({ type: 'application/json' }), createExpressHandler({ secret: SECRET, onEvent: (e) => void events.push(e), onError: (e) => { throw e; } }));
    app.use(express.json());
    const server = http.createServer(app);
    const origin = await listen(server);
    try {
      const d = delivery();
      expect((await fetch(`${origin}/hooks/certificates`, { method: 'POST', body: d.body, headers: d.headers })).status).toBe(200);
      expect(events).toHaveLength(1);
    } finally {
      await closeServer(server);
    }
  });
});

describe('failures around the handler', () => {
  test('a store that throws: 500 (the service retries), onError told, onEvent not called', async () => {
    const told: unknown[] = [];
    const events: WebhookEvent[] = [];
    const receive = createReceiver({
      secret: SECRET,
      store: { claim: async () => Promise.reject(new Error('redis down')), settle: () => undefined },
      onError: (error) => told.push(error),
      onEvent: (event) => void events.push(event),
    });
    const d = delivery();
    expect(await receive(d.body, d.headers)).toEqual({ status: 500, body: { error: 'HANDLER_FAILED', message: expect.stringMatching(/will retry/) } });
    expect(told).toEqual([new Error('redis down')]);
    expect(events).toEqual([]);
  });

  test('a store that cannot record a handled delivery as done: still 200 (a 500 would have it delivered again), onError told', async () => {
    const told: unknown[] = [];
    const events: WebhookEvent[] = [];
    const receive = createReceiver({
      secret: SECRET,
      store: { claim: () => 'taken', settle: async (_id, ok) => (ok ? Promise.reject(new Error('redis down')) : undefined) },
      onError: (error) => told.push(error),
      onEvent: (event) => void events.push(event),
    });
    const d = delivery();
    expect(await receive(d.body, d.headers)).toEqual({ status: 200, body: { received: true } });
    expect(told).toHaveLength(1);
    expect(told[0]).toBeInstanceOf(NotRecordedError);
    expect(told[0]).toMatchObject({ message: expect.stringMatching(/answered 200, but the store could not record it as done/), cause: new Error('redis down') });
    expect(events).toHaveLength(1);
  });

  test('the default onNotCertificate warns with the delivery id and why, never the body', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const receive = createReceiver({ secret: SECRET, onEvent: () => {} });
      const body = JSON.stringify({ id: 'whe_t', type: 'certificate.sent', createdAt: '2026-11-23T00:00:00.000Z', data: { secretish: 'x' } });
      expect(await receive(body, { 'X-Service-Delivery': 'whd_t', ...signPayload(SECRET, body) })).toEqual({ status: 200, body: { received: true, notCertificate: true } });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/delivery whd_t \(certificate\.sent\) is not a certificate event \(data has no recipient id\); answered 200/);
      expect(String(warn.mock.calls[0][0])).not.toContain('secretish');
    } finally {
      warn.mockRestore();
    }
  });

  test('a receiver without a secret or onEvent refuses to start', () => {
    expect(() => createReceiver({ secret: '', onEvent: () => {} })).toThrow(/signing secret/);
    expect(() => createReceiver({ secret: SECRET } as ReceiverOptions)).toThrow(/onEvent/);
  });

  test('node http: a body over maxBodyBytes answers 413 before verifying', async () => {
    const server = http.createServer(createNodeHandler({ secret: SECRET, onEvent: () => {}, maxBodyBytes: 1024 }));
    const origin = await listen(server);
    try {
      const res = await fetch(`${origin}/hooks`, { method: 'POST', body: 'x'.repeat(2048), headers: { 'Content-Type': 'application/json' } });
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: 'BODY_TOO_LARGE' });
    } finally {
      await closeServer(server);
    }
  });
});

describe('real deliveries from the sandbox', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ rateLimit: false, timeScale: 0.0001 });
  });
  afterAll(() => sb.close());

  test.each(['node http', 'express', 'fastify'])('%s: every delivery sent twice, each event handled once (default in-memory store)', async (name) => {
    const ws = sb.controls.createWorkspace();
    const client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    const port = await freePort();
    const sub = await client.createSubscription({ url: `http://127.0.0.1:${port}/hooks`, events: ['certificate.issued', 'certificate.sent'] });
    const events: WebhookEvent[] = [];
    const h = await frameworks[name]({ secret: sub.secret!, onEvent: (event) => void events.push(event) }, port);
    try {
      sb.controls.setDuplicateDeliveries(2);
      const batch = await client.createBatch({ title: 'Receivers', designId: 'design_classic' });
      await client.issueMany([1, 2, 3].map((i) => ({ batchId: batch.id, name: `P ${i}`, email: `p${i}@example.com`, send: true })));
      const mine = (log: Array<{ subscriptionId: string; outcome: string }>) => log.filter((a) => a.subscriptionId === sub.id);
      // Two copies of a delivery at once: one may find the other still pending (503), and its
      // retry is then a duplicate. Each of the 12 copies ends delivered.
      const ended = (log: Array<{ subscriptionId: string; outcome: string }>) => mine(log).filter((a) => a.outcome !== 'retrying');
      const log = await sb.controls.waitForDeliveries((all) => ended(all).length >= 12, 10_000);
      expect(ended(log).map((a) => a.outcome)).toEqual(Array(12).fill('succeeded'));
      expect(mine(log).filter((a) => a.outcome === 'retrying').every((a) => (a as { status?: number }).status === 503)).toBe(true);
    } finally {
      sb.controls.setDuplicateDeliveries(1);
      await h.close();
    }
    expect(events.filter((e) => e.type === 'certificate.issued')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'certificate.sent')).toHaveLength(3);
    expect(new Set(events.map((e) => e.id)).size).toBe(6);
  }, 30_000);
});
