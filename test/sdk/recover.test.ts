// recoverEvents / findRecoverableEvents (shared/sdk/src/recover.ts) against the sandbox on a
// clock the test steps: which occurrences fall in the window, what each costs in requests, the
// event shape, and the stores it runs against (memoryStore forgets on restart, fileStore does not).
// The property test (poll-property.test.ts) runs recovery against every list model too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { createClient, fileStore, memoryStore, type CertificateServiceClient, type DeliveryStore, type RecoveredEvent } from '@certificate-service/sdk';

const DAY = 24 * 60 * 60 * 1000;
let now = Date.parse('2026-11-01T10:00:00.000Z');
let sb: Sandbox;
let client: CertificateServiceClient;
let dir: string;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, mailDelayMs: 3_600_000, quota: 1_000_000, clock: () => now });
  dir = mkdtempSync(path.join(tmpdir(), 'recover-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  const ws = sb.controls.createWorkspace();
  client = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
});

const batch = async () => (await client.createBatch({ title: 'Recovery', designId: 'design_classic' })).id;
const issue = async (batchId: string, n: number, opts: { bounce?: boolean; send?: boolean } = {}) => {
  const out = await client.issueBulk(batchId, Array.from({ length: n }, (_, i) => ({ name: `P${i}`, email: `p${i}-${Math.random().toString(36).slice(2)}@${opts.bounce ? 'bounce.test' : 'example.com'}` })), { send: opts.send ?? false });
  return out.map((o) => (o as { recipient: { id: string } }).recipient.id);
};
const recover = async (since: number, store: DeliveryStore = memoryStore(), extra: Record<string, unknown> = {}) => {
  const ran: RecoveredEvent[] = [];
  const result = await client.recoverEvents({ since, store, onEvent: (e) => void ran.push(e), ...extra });
  return { ran, result, keys: ran.map((e) => `${e.type.slice(12)} ${e.data.id}`) };
};

test('issued and sent at or after `since`, of any certificate (a send during the outage of one issued long before); nothing earlier', async () => {
  const b = await batch();
  const [old] = await issue(b, 1);
  now += 30 * DAY;
  const [before] = await issue(b, 1, { send: true });
  sb.controls.settleMail();
  now += 1000;
  const since = now;
  const [after] = await issue(b, 1);
  await client.sendCertificate(b, old);
  sb.controls.settleMail();
  const { keys, ran, result } = await recover(since);
  expect(keys.sort()).toEqual([`issued ${after}`, `sent ${old}`].sort());
  expect(before).toBeDefined();
  // The delivered shape, marked recovered; ids derived from the occurrence (the same again).
  const sent = ran.find((e) => e.type === 'certificate.sent')!;
  expect(sent).toMatchObject({ type: 'certificate.sent', recovered: true, createdAt: sent.data.emailSentAt, data: { id: old, emailStatus: 'sent' } });
  expect(sent.id).toMatch(/^whe_r[0-9a-f]{24}$/);
  expect((await recover(since)).ran.find((e) => e.type === 'certificate.sent')!.id).toBe(sent.id);
  expect(result).toMatchObject({ found: 2, ran: 2, duplicates: 0, pending: 0, failed: [] });
});

test('`until`: nothing after it, by the time the event carries (an issue, a send, a failure)', async () => {
  const b = await batch();
  const since = now;
  const [early] = await issue(b, 1, { send: true });
  sb.controls.settleMail(); // sent at `since`
  now += 1000;
  const until = now;
  now += 1000;
  await issue(b, 1, { send: true }); // issued and sent after `until`
  const [bounce] = await issue(b, 1, { bounce: true, send: true });
  await client.sendCertificate(b, early); // sent again after `until`: the list shows only the last send
  sb.controls.settleMail();
  now += 1000;
  expect((await recover(since, memoryStore(), { until })).keys).toEqual([`issued ${early}`]);
  expect((await recover(since, memoryStore(), { until: now })).keys.sort()).toEqual(expect.arrayContaining([`failed ${bounce}`, `sent ${early}`]));
  await expect(client.recoverEvents({ since, until: since - 1, store: memoryStore(), onEvent: () => undefined })).rejects.toMatchObject({ field: 'until' });
});

test('failed: certificates issued up to 7 days before `since`; a resend that fails again is one occurrence', async () => {
  const b = await batch();
  const [tooOld] = await issue(b, 1, { bounce: true });
  now += 2 * DAY;
  const [inWindow] = await issue(b, 1, { bounce: true });
  sb.controls.settleMail(); // no send asked yet: nothing fails
  now += 6 * DAY;
  const since = now; // tooOld was issued 8 days before, inWindow 6
  for (const id of [tooOld, inWindow]) await client.sendCertificate(b, id);
  sb.controls.settleMail();
  now += 1000;
  const store = memoryStore();
  expect((await recover(since, store, { events: ['failed'] })).keys).toEqual([`failed ${inWindow}`]);
  await client.sendCertificate(b, inWindow); // the resend fails again
  sb.controls.settleMail();
  const again = await recover(since, store, { events: ['failed'] });
  expect([again.keys, again.result.duplicates]).toEqual([[], 1]);
});

test('cost: one list request per 100 certificates of each batch and event, plus the batch list', async () => {
  const b = await batch();
  for (let i = 0; i < 3; i++) await issue(b, 100);
  await issue(b, 50);
  const issued = await recover(now - 1, memoryStore(), { events: ['issued'] });
  expect([issued.result.found, issued.result.requests]).toEqual([350, 1 + 4]);
  const named = await recover(now - 1, memoryStore(), { events: ['issued'], batches: [b] });
  expect(named.result.requests).toBe(4);
});

test('a handler that throws: released and reported; the next recovery runs it', async () => {
  const b = await batch();
  const since = now;
  await issue(b, 2);
  const store = memoryStore();
  let calls = 0;
  const first = await client.recoverEvents({ since, store, onEvent: () => { if (++calls === 1) throw new Error('db down'); } });
  expect([first.ran, first.failed.length]).toEqual([1, 1]);
  expect((await recover(since, store)).result).toMatchObject({ ran: 1, duplicates: 1 });
});

test('bad input names the field, before any request; viewed cannot be recovered', async () => {
  const store = memoryStore();
  const onEvent = () => undefined;
  await expect(client.recoverEvents({ since: 'last week', store, onEvent })).rejects.toMatchObject({ field: 'since' });
  await expect(client.recoverEvents({ since: 0, store, onEvent, events: ['viewed' as never] })).rejects.toMatchObject({ field: 'events', message: expect.stringMatching(/viewed.*cannot be recovered/) });
  await expect(client.recoverEvents({ since: 0, store: {} as never, onEvent })).rejects.toMatchObject({ field: 'store' });
  await expect(client.recoverEvents({ since: 0, store, onEvent, batches: [' '] })).rejects.toMatchObject({ field: 'batches[0]' });
});

describe('the store', () => {
  test('fileStore survives a restart: a second recovery after reopening runs nothing; memoryStore would run it all again', async () => {
    const b = await batch();
    const since = now;
    await issue(b, 3, { send: true });
    sb.controls.settleMail();
    const file = path.join(dir, 'claims.db');
    expect((await recover(since, fileStore(file))).result.ran).toBe(6);
    expect((await recover(since, fileStore(file))).result).toMatchObject({ ran: 0, duplicates: 6 });
    expect((await recover(since, memoryStore())).result.ran).toBe(6);
  });

  test('fileStore keeps a key `keepDays` (default 45) across reopening, then drops it; a claim never settled is free after pendingMs', async () => {
    const file = path.join(dir, 'keep.db');
    let t = Date.parse('2026-01-01T00:00:00Z');
    const store = fileStore(file, { now: () => t });
    expect(store.claim('rec_1')).toBe('taken');
    store.settle('rec_1', true);
    expect(store.claim('rec_2')).toBe('taken'); // never settled: its process died
    store.close();
    t += 44 * DAY;
    const reopened = fileStore(file, { now: () => t });
    expect([reopened.claim('rec_1'), reopened.claim('rec_2')]).toEqual(['done', 'taken']);
    reopened.close();
    t += 2 * DAY;
    expect(fileStore(file, { now: () => t }).claim('rec_1')).toBe('taken');
  });
});
