// pollCertificates / pollActiveBatches (shared/sdk/src/poll/) against the sandbox in
// each list model (order, timestamp precision, cursor kind and lifetime): new certificates and
// sends once each, newest first, across restarts (the state through JSON); the rows of issue 25
// about polls; a list that moved under a walk; a refused cursor; the budget; the sent/failed
// window; what cannot be read; bad input; all active batches.
// poll-requests.test.ts measures the requests per poll; poll-property.test.ts checks all of
// it at random.
import { CertificateServiceError, type PollEvent } from '@certificate-service/sdk/core';
import { DAY, PollWorld, SECOND, type Model } from '../support/poll-world';
import { KEY } from './helpers';
import { listServer, type Order } from './poll-list';

jest.setTimeout(30_000);

let world: PollWorld;
beforeAll(async () => {
  world = await PollWorld.start();
});
afterAll(() => world.close());

const model = (over: Partial<Model> = {}): Model => ({ order: 'newest-first', precision: 'ms', cursorKind: 'opaque', expiry: false, ...over });
const ids = (out: { emitted: { id: string }[] }) => out.emitted.map((e) => e.id);
const ORDERS = ['newest-first', 'oldest-first', 'undetectable'] as const;

/** Issues certificates one call at a time, a second apart (`bulk` per call). */
async function issueEach(n: number, opts: { bulk?: number; send?: boolean } = {}): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    world.tick(SECOND);
    out.push(...(await world.issue(opts.bulk ?? 1, { send: opts.send })).map((r) => r.id));
  }
  if (opts.send) world.settleMail();
  return out;
}

describe.each(ORDERS)('list served %s', (order) => {
  test('first poll emits nothing; then each new certificate once, newest first; the state through JSON carries on', async () => {
    await world.begin(model({ order }));
    await issueEach(12);
    const p = world.core('issued');
    world.tick(5 * SECOND);
    expect(ids(await p.poll())).toEqual([]);
    const fresh = await issueEach(3);
    world.tick(5 * SECOND);
    expect(ids(await p.poll())).toEqual([...fresh].reverse());
    world.tick(5 * SECOND);
    expect(ids(await p.poll())).toEqual([]);
    // JSON-safe: the state is all a restart has (world.core keeps it as JSON).
    expect(JSON.parse(JSON.stringify(p.state()))).toEqual(p.state());
    const after = await issueEach(2);
    world.tick(5 * SECOND);
    expect(ids(await p.poll())).toEqual([...after].reverse());
  });

  test('firstPoll N: the first poll returns the newest N, newest first', async () => {
    await world.begin(model({ order }));
    const all = await issueEach(30);
    world.tick(SECOND);
    const client = world.core('issued', { remember: true });
    const first = await (async () => {
      const { createClient } = await import('@certificate-service/sdk');
      return createClient({ baseUrl: world.sb.baseUrl, apiKey: world.sb.apiKey! }).pollCertificates({ batchId: world.batchId, event: 'issued', firstPoll: 3 });
    })();
    expect(first.certificates.map((r) => r.id)).toEqual(all.slice(-3).reverse());
    expect(client).toBeDefined();
  });

  test('an empty batch: what comes after the first poll is new', async () => {
    await world.begin(model({ order }));
    const p = world.core('issued');
    expect(ids(await p.poll())).toEqual([]);
    const fresh = await issueEach(2);
    world.tick(SECOND);
    expect(ids(await p.poll())).toEqual([...fresh].reverse());
  });
});

describe('the poll rows of issue 25', () => {
  test('row: newest-first list, createdAt to the second: the certificates of the same second beyond the page that reaches it are emitted, once', async () => {
    await world.begin(model({ precision: 's' }));
    world.now = Math.floor(world.now / SECOND) * SECOND + 100;
    await issueEach(10); // enough history for the order to be known
    const p = world.core('issued');
    world.tick(2 * SECOND);
    await p.poll();
    // 103, then 150, issued within one second (the poll reads in that second too).
    const second = Math.floor(world.now / SECOND) * SECOND;
    world.now = second + 1;
    const a = [...(await world.issue(100)), ...(await world.issue(3))].map((r) => r.id);
    world.tick(10);
    expect(new Set(ids(await p.poll()))).toEqual(new Set(a));
    world.tick(10);
    const b = [...(await world.issue(100)), ...(await world.issue(50))].map((r) => r.id);
    world.tick(10);
    const got = ids(await p.poll());
    expect(got.sort()).toEqual([...b].sort());
    expect(world.now).toBeLessThan(second + SECOND);
    // The clock passes that second. The next walk reads the tie once more (it could have grown
    // after the last read); after that the tie is closed and a quiet poll reads one page.
    world.tick(2 * SECOND);
    const closing = await p.poll();
    expect([ids(closing), closing.requests]).toEqual([[], 3]);
    world.tick(2 * SECOND);
    const quiet = await p.poll();
    expect([ids(quiet), quiet.requests]).toEqual([[], 1]);
  });

  test('row: oldest-first list, offset cursors, after deletions: a new certificate is emitted', async () => {
    await world.begin(model({ order: 'oldest-first', cursorKind: 'offset' }));
    const old = await issueEach(5, { bulk: 50 });
    const p = world.core('issued');
    world.tick(SECOND);
    await p.poll();
    // 60 of the oldest go: every offset after them moves 60 places.
    for (const id of old.slice(0, 60)) await world.remove(id);
    const [fresh] = await issueEach(1);
    world.tick(SECOND);
    const out = await p.poll();
    expect(ids(out)).toEqual([fresh]);
    expect(out.notes.join(' ')).toMatch(/shifted/);
    world.tick(SECOND);
    expect(ids(await p.poll())).toEqual([]);
  });

  test("row: 'sent', a late send of an older certificate: no certificate already emitted is emitted again", async () => {
    await world.begin(model());
    const p = world.core('sent');
    await p.poll();
    const bulk = await issueEach(1, { bulk: 100, send: true });
    world.tick(SECOND);
    const late = (await world.issue(1))[0].id;
    world.tick(SECOND);
    expect(ids(await p.poll()).length).toBe(100);
    // The late send moves the oldest of the 100 off the first page; deleting one of the others brings it back.
    await world.send(late);
    world.settleMail();
    world.tick(SECOND);
    expect(ids(await p.poll())).toEqual([`${late}:sent:${Date.parse(world.certificates().find((r) => r.id === late)!.emailSentAt!)}`]);
    await world.remove(bulk[50]);
    world.tick(SECOND);
    expect(ids(await p.poll())).toEqual([]);
    // Sent again: another send, emitted once.
    world.tick(SECOND);
    await world.send(late);
    world.settleMail();
    world.tick(SECOND);
    expect(ids(await p.poll())).toHaveLength(1);
    world.tick(SECOND);
    expect(ids(await p.poll())).toEqual([]);
  });
});

describe('a list that moved under a walk the budget cut short', () => {
  test.each(ORDERS)('%s, offset cursors: what was deleted before the saved page does not make the walk skip', async (order) => {
    await world.begin(model({ order, cursorKind: 'offset' }));
    const p = world.core('issued', { pageSize: 2, budget: 2 });
    await p.poll();
    const fresh = await issueEach(10);
    world.tick(SECOND);
    const emitted = ids(await p.poll());
    // Delete what the first poll emitted: every later offset moves back by that many.
    for (const id of emitted) await world.remove(id);
    const notes: string[] = [];
    for (let i = 0; i < 10; i++) {
      world.tick(SECOND);
      const out = await p.poll();
      emitted.push(...ids(out));
      notes.push(...out.notes);
    }
    expect(emitted.sort()).toEqual([...fresh].sort());
    expect(notes.join(' ')).toMatch(/shifted/);
  });
});

describe('a cursor the service refuses (400 on cursor)', () => {
  test('oldest first, cursors that expire before the next poll: read from the top, say so, and go on', async () => {
    await world.begin(model({ order: 'oldest-first', expiry: { afterMs: 30_000 } }));
    await issueEach(5, { bulk: 50 });
    const p = world.core('issued');
    world.tick(SECOND);
    await p.poll();
    for (let i = 0; i < 3; i++) {
      const [fresh] = await issueEach(1);
      world.tick(60 * SECOND);
      const out = await p.poll();
      expect(ids(out)).toEqual([fresh]);
      expect(out.notes[0]).toMatch(/refused a saved list cursor \(400 VALIDATION_ERROR: cursor expired.*\); reading the list again from the top/);
      expect(out.requests).toBe(4);
    }
  });

  test('cursors that expire after N writes, mid-walk: the walk restarts from the top and nothing is missed', async () => {
    await world.begin(model({ order: 'undetectable', expiry: { afterWrites: 2 } }));
    const p = world.core('issued', { pageSize: 3, budget: 2 });
    await p.poll();
    const fresh = await issueEach(12);
    const emitted: string[] = [];
    for (let i = 0; i < 12; i++) {
      world.tick(SECOND);
      emitted.push(...ids(await p.poll()));
      if (i === 1) fresh.push(...(await issueEach(3)));
    }
    expect(emitted.sort()).toEqual([...fresh].sort());
  });

  test('what cannot be served: cursors that expire between polls on an oldest-first list longer than a budget of pages; every poll says so, none fails', async () => {
    await world.begin(model({ order: 'oldest-first', expiry: { afterMs: 30_000 } }));
    await issueEach(15, { bulk: 100 });
    const p = world.core('issued');
    for (let i = 0; i < 4; i++) {
      world.tick(60 * SECOND);
      const out = await p.poll();
      expect(out.requests).toBe(10); // the refused request counts too
      expect(out.notes.join(' ')).toMatch(i === 0 ? /budget of one poll/ : /refused a saved list cursor[\s\S]*budget of one poll/);
      expect(p.state()!.walk).toBeDefined();
    }
  });
});

test('a refusal that quotes the API key: the note says why without it', async () => {
  const s = listServer('oldest-first');
  s.issue(250);
  const first = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued' });
  expect(first.state.from?.cursor).toEqual(expect.any(String));
  s.refuseCursors(`cursor expired (key ${KEY})`);
  const out = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued', state: first.state });
  expect(out.notes[0]).toMatch(/refused a saved list cursor \(400 VALIDATION_ERROR: cursor expired \(key \[redacted\]\)/);
  expect(JSON.stringify(out)).not.toContain(KEY);
});

describe('the budget', () => {
  test('a flood of 1,200 new: 10 requests this poll, the rest in the next, none dropped, none twice', async () => {
    await world.begin(model());
    await issueEach(3, { bulk: 50 });
    const p = world.core('issued');
    world.tick(SECOND);
    await p.poll();
    const fresh = await issueEach(12, { bulk: 100 });
    world.tick(SECOND);
    const first = await p.poll();
    expect([first.requests, first.notes]).toEqual([10, [expect.stringMatching(/budget of one poll.*next poll goes on/)]]);
    world.tick(SECOND);
    const second = await p.poll();
    expect([...ids(first), ...ids(second)].sort()).toEqual([...fresh].sort());
  });

  test.each([1, 101, 2.5])('budget %p: an error naming the field, before any request', async (budget) => {
    const s = listServer('newest-first');
    await expect(s.client.pollCertificates({ batchId: 'batch_1', event: 'issued', budget })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'budget' });
    expect(s.requests).toHaveLength(0);
  });
});

describe.each(ORDERS)('sent and failed (%s)', (order) => {
  test('sent: each send once; a certificate sent again is another send; failed: once per certificate', async () => {
    await world.begin(model({ order }));
    const okIds = await issueEach(3);
    world.tick(SECOND);
    const bounce = (await world.issue(1, { bounce: true }))[0].id;
    const sent = world.core('sent');
    const failed = world.core('failed');
    await sent.poll();
    await failed.poll();
    for (const id of [okIds[2], bounce]) await world.send(id);
    world.settleMail();
    world.tick(SECOND);
    const s1 = await sent.poll();
    expect(s1.emitted.map((e) => e.id.split(':')[0])).toEqual([okIds[2]]);
    expect(ids(await failed.poll())).toEqual([`${bounce}:failed`]);
    // An older certificate sent now, and the first one sent again.
    await world.send(okIds[0]);
    await world.send(okIds[2]);
    world.settleMail();
    world.tick(SECOND);
    expect((await sent.poll()).emitted.map((e) => e.id.split(':')[0]).sort()).toEqual([okIds[0], okIds[2]].sort());
    world.tick(SECOND);
    expect(ids(await sent.poll())).toEqual([]);
    expect(ids(await failed.poll())).toEqual([]);
  });

  test('the window: with a poll a day, a send 6 days after issue is emitted; one 8 days after is not (a documented miss)', async () => {
    await world.begin(model({ order }));
    const [a, b] = await issueEach(2);
    const p = world.core('sent');
    const daily = async (days: number) => {
      const out: string[] = [];
      for (let d = 0; d < days; d++) {
        world.tick(DAY);
        out.push(...ids(await p.poll()));
      }
      return out;
    };
    await p.poll();
    expect(await daily(6)).toEqual([]);
    await world.send(a);
    world.settleMail();
    expect((await daily(2)).map((k) => k.split(':')[0])).toEqual([a]);
    await world.send(b);
    world.settleMail();
    expect(await daily(1)).toEqual([]);
  });
});

test('the list request carries the emailStatus filter of the event, and none for issued', async () => {
  const s = listServer('newest-first');
  s.issue(1);
  await s.client.pollCertificates({ batchId: 'batch_1', event: 'sent' });
  await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued' });
  const queries = s.requests.map((r) => new URL(r.url).searchParams);
  expect(queries.map((q) => q.get('emailStatus'))).toEqual(['sent', null]);
  expect(queries.map((q) => q.get('limit'))).toEqual(['100', '100']);
});

describe('remember: false (the host dedupes, as Zapier does)', () => {
  test('the first poll returns the newest N and everything of the instant it read at; later polls what happened since the previous walk began', async () => {
    await world.begin(model({ precision: 's' }));
    world.now = Math.floor(world.now / SECOND) * SECOND;
    const tie = [...(await world.issue(100)), ...(await world.issue(50))].map((r) => r.id);
    const p = world.core('issued', { remember: false, ...{} });
    const { createClient } = await import('@certificate-service/sdk');
    const client = createClient({ baseUrl: world.sb.baseUrl, apiKey: world.sb.apiKey! });
    const first = await client.pollCertificates({ batchId: world.batchId, event: 'issued', remember: false, firstPoll: 100 });
    expect(first.certificates.map((r) => r.id).sort()).toEqual([...tie].sort());
    expect(first.state.known).toEqual([]);
    world.tick(2 * SECOND);
    const [fresh] = await world.issue(1);
    world.tick(10);
    // What happened since the first walk began: the new one, and the tie of that instant again
    // (the host's dedupe has seen it). The walk after that starts past it.
    const next = await client.pollCertificates({ batchId: world.batchId, event: 'issued', remember: false, state: first.state });
    expect(next.certificates.map((r) => r.id).sort()).toEqual([fresh.id, ...tie].sort());
    world.tick(2 * SECOND);
    const [last] = await world.issue(1);
    world.tick(10);
    const third = await client.pollCertificates({ batchId: world.batchId, event: 'issued', remember: false, state: next.state });
    expect(third.certificates.map((r) => r.id)).toEqual([last.id, fresh.id]);
    expect(third.state.known).toEqual([]);
    expect(p).toBeDefined();
  });
});

describe('an answer that cannot be read is an error, never "nothing new"', () => {
  const cases: [string, (body: Record<string, unknown>) => unknown, RegExp][] = [
    ['an HTML page', () => '<html><body>Sign in</body></html>', /HTML page/],
    ['an unknown wrapper', (b) => ({ entries: b.data }), /"entries"/],
    ['an item without createdAt', (b) => ({ ...b, data: (b.data as object[]).map((r) => ({ ...r, createdAt: undefined })) }), /readable "createdAt"/],
  ];
  test.each(cases)('%s', async (_name, broken, message) => {
    const s = listServer('newest-first');
    s.issue(3);
    const first = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued' });
    s.issue(3);
    s.breakNext(broken);
    const error = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued', state: first.state }).catch((e) => e);
    expect(error).toBeInstanceOf(CertificateServiceError);
    expect((error as CertificateServiceError).code).toBe('UNEXPECTED_RESPONSE');
    expect((error as CertificateServiceError).message).toMatch(message);
  });

  test('a full page with no cursor and no sign that it is the last', async () => {
    const s = listServer('oldest-first');
    s.issue(250);
    s.breakNext((b) => ({ data: b.data }));
    const error = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued' }).catch((e) => e);
    expect((error as CertificateServiceError).code).toBe('UNEXPECTED_RESPONSE');
  });

  test('a list in no order is no error: it is walked whole', async () => {
    const s = listServer('newest-first');
    s.issue(3);
    const first = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued' });
    const fresh = s.issue(2);
    s.breakNext((b) => {
      const data = b.data as object[];
      return { ...b, data: [data[1], data[0], ...data.slice(2)] };
    });
    const out = await s.client.pollCertificates({ batchId: 'batch_1', event: 'issued', state: first.state });
    expect(out.certificates.map((r) => r.id)).toEqual([...fresh].reverse());
    expect(out.state.order).toBe('unordered');
  });
});

describe('bad input: an error naming the field, before any request', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['no batch', { batchId: ' ', event: 'issued' }, 'batchId'],
    ['an unknown event', { batchId: 'batch_1', event: 'viewed' }, 'event'],
    ['a negative firstPoll', { batchId: 'batch_1', event: 'issued', firstPoll: -1 }, 'firstPoll'],
    ['a page size of 500', { batchId: 'batch_1', event: 'issued', pageSize: 500 }, 'pageSize'],
    ['a window of 0 days', { batchId: 'batch_1', event: 'sent', windowDays: 0 }, 'windowDays'],
    ['remember as a string', { batchId: 'batch_1', event: 'sent', remember: 'yes' }, 'remember'],
    ['a damaged state', { batchId: 'batch_1', event: 'issued', state: { v: 2, known: 'rec_1' } }, 'state.known'],
    ['a state without a version (none before v2 was published)', { batchId: 'batch_1', event: 'issued', state: { known: [], mark: 'yesterday' } }, 'state.v'],
  ])('%s', async (_name, options, field) => {
    const s = listServer('newest-first');
    const error = await s.client.pollCertificates(options as never).catch((e) => e);
    expect([(error as CertificateServiceError).code, (error as CertificateServiceError).field]).toEqual(['VALIDATION_ERROR', field]);
    expect(s.requests).toHaveLength(0);
  });
});

describe.each<Order>(['newest-first', 'oldest-first'])('all active batches (%s)', (order) => {
  test('one state per batch; a batch created after the first poll: all its certificates are new', async () => {
    const s = listServer(order);
    s.batches.push('batch_2');
    s.issue(3);
    s.issue(2, { batchId: 'batch_2' });
    const first = await s.client.pollActiveBatches({ event: 'issued' });
    expect(first.certificates).toEqual([]);
    expect(Object.keys(first.states).sort()).toEqual(['batch_1', 'batch_2']);
    expect(first.requests).toBe(3); // the batch list + one page each
    s.batches.push('batch_3');
    const a = s.issue(1, { batchId: 'batch_2' });
    const b = s.issue(2, { batchId: 'batch_3' });
    const c = s.issue(1);
    const next = await s.client.pollActiveBatches({ event: 'issued', states: JSON.parse(JSON.stringify(first.states)) });
    // Newest first across batches.
    expect(next.certificates.map((r) => r.id)).toEqual([...c, ...[...b].reverse(), ...a]);
    const again = await s.client.pollActiveBatches({ event: 'issued', states: next.states });
    expect(again.certificates).toEqual([]);
  });

  test('first poll with firstPoll 1: the newest over all batches', async () => {
    const s = listServer(order);
    s.batches.push('batch_2');
    s.issue(2);
    const [, last] = s.issue(2, { batchId: 'batch_2' });
    const first = await s.client.pollActiveBatches({ event: 'issued', firstPoll: 1 });
    expect(first.certificates.map((r) => r.id)).toEqual([last]);
  });

  test('damaged states are refused by name', async () => {
    const s = listServer(order);
    await expect(s.client.pollActiveBatches({ event: 'issued', states: { batch_1: { v: 2, known: 3 } } as never })).rejects.toMatchObject({ field: 'states.batch_1.known' });
    await expect(s.client.pollActiveBatches({ event: 'issued', states: [] as never })).rejects.toMatchObject({ field: 'states' });
    await expect(s.client.pollActiveBatches({ event: 'opened' as never })).rejects.toMatchObject({ field: 'event' });
    expect(s.requests).toHaveLength(0);
  });
});

// The event names the type a poll stands for (kept equal to the webhook event types).
test('each poll event', () => {
  const events: PollEvent[] = ['issued', 'sent', 'failed'];
  expect(events).toHaveLength(3);
});
