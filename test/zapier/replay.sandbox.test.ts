// Issue 41 against the sandbox (the real HTTP service in memory): the service stores a certificate
// but its answer never reaches the step, the step is replayed as Zapier would (the same perform,
// the same input, Zapier's cache kept between runs), and the batch holds exactly one certificate
// for that email. The sandbox's fault injection loses the answer: `reset-after-commit` closes the
// connection after the certificate is stored; `delay` holds the call past the step's deadline and
// stores it afterwards, as a slow service would.
import zapier, { type Bundle } from 'zapier-platform-core';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { App, caught } from './helpers';
import { REQUEST_DEADLINE_MS, clientFor, withClient } from '../../zapier/src/lib/client';
import { issueOne } from '../../zapier/src/creates/issue_certificate';
import { LOST_ANSWER_SETTLE_SECONDS, lostAnswerKey } from '../../zapier/src/lib/lost-answer';

jest.setTimeout(30_000);

let sb: Sandbox;
let authData: { apiKey: string; baseUrl: string };
const appTester = zapier.createAppTester(App);
const cache = () => (appTester as unknown as { zcacheTestObj: Record<string, string> }).zcacheTestObj;

beforeAll(async () => {
  sb = await createSandbox({ timeScale: 0.0001 });
  authData = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
afterAll(async () => {
  await sb?.close();
});
afterEach(() => sb.controls.clearFaults());

function run<T = Record<string, unknown>>(path: string, inputData: Record<string, unknown>): Promise<T> {
  const fn = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], App);
  return appTester(fn as never, { authData, inputData }) as Promise<T>;
}
const issue = (inputData: Record<string, unknown>) => run('creates.issue_certificate.operation.perform', inputData);
async function newBatch(title: string): Promise<string> {
  return (await run<{ id: string }>('creates.create_batch.operation.perform', { title, design_id: 'design_classic' })).id;
}
const certificatesFor = (batchId: string, email: string) => sb.controls.certificates(batchId).filter((c) => c.email === email);
/** What the sandbox was asked while `fn` ran, by route ("POST /batches/:id/recipients": 1). */
async function requestsDuring(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = sb.controls.counters().requests.byRoute;
  await fn();
  const after = sb.controls.counters().requests.byRoute;
  return Object.fromEntries(Object.entries(after).flatMap(([route, n]) => (n - (before[route] ?? 0) > 0 ? [[route, n - (before[route] ?? 0)]] : [])));
}
/** As if the replay came after the lost call could have landed (the marker's time moved back). */
function settle(batchId: string, email: string): void {
  const key = lostAnswerKey(authData, batchId, email);
  expect(cache()[key]).toBeDefined();
  cache()[key] = JSON.stringify({ at: Date.now() - (LOST_ANSWER_SETTLE_SECONDS + 1) * 1000 });
}
const loseAnswerTo = (batchId: string, kind: 'reset-after-commit' | 'delay', delayMs?: number) =>
  sb.controls.injectFaults({ kind, delayMs, count: 1, match: { method: 'POST', path: `^/batches/${batchId}/recipients$` } });

describe('Issue Certificate replayed after the service stored it but the answer was lost', () => {
  it('the connection is reset after the commit: the replay returns that certificate, and the batch holds one for the email', async () => {
    const batchId = await newBatch('Replay after reset');
    const input = { batch_id: batchId, name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Replay' } };
    loseAnswerTo(batchId, 'reset-after-commit');
    const lost = await caught(issue(input));
    expect(lost.name).toBe('AppError');
    expect(String(lost.json?.message)).toMatch(/^Outcome unknown: POST \/batches\/.*\/recipients for ada@example\.com/);
    expect(String(lost.json?.message)).toMatch(/Replaying this step within 7 days is safe/);
    const [stored] = certificatesFor(batchId, 'ada@example.com');
    expect(stored).toBeDefined();

    // Zapier's autoreplay right away: throttled until the call can have landed; nothing read or sent.
    let early: Awaited<ReturnType<typeof caught>> | undefined;
    expect(await requestsDuring(async () => (early = await caught(issue(input))))).toEqual({});
    expect(early?.name).toBe('ThrottledError');

    settle(batchId, 'ada@example.com');
    let replayed: Record<string, unknown> = {};
    const asked = await requestsDuring(async () => (replayed = await issue(input)));
    expect(asked).toEqual({ 'GET /batches/:id/recipients': 1 });
    expect(replayed).toMatchObject({ id: stored.id, certificateId: stored.certificateId, skipped: true, recovered: true });
    expect(certificatesFor(batchId, 'ada@example.com')).toHaveLength(1);
  });

  it('the call outlasts the step\'s deadline and the service stores it later: the replay finds it, and the batch holds one', async () => {
    const batchId = await newBatch('Replay after timeout');
    const input = { batch_id: batchId, name: 'Grace Hopper', email: 'grace@example.com' };
    loseAnswerTo(batchId, 'delay', 1_500);
    // The step as withClient runs it, but started 23.6 s ago: its requests have 0.4 s left.
    const late = withClient((_client, z, bundle: Bundle) => issueOne(clientFor(z, bundle, Date.now() - REQUEST_DEADLINE_MS + 400), z, bundle));
    const lost = await caught(appTester(late, { authData, inputData: input }));
    expect(lost.name).toBe('AppError');
    expect(String(lost.json?.message)).toMatch(/timed out \(no answer by 24 s into the step/);
    expect(certificatesFor(batchId, 'grace@example.com')).toHaveLength(0); // still held by the service
    for (let waited = 0; certificatesFor(batchId, 'grace@example.com').length === 0 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const [stored] = certificatesFor(batchId, 'grace@example.com');
    expect(stored).toBeDefined();

    settle(batchId, 'grace@example.com');
    await expect(issue(input)).resolves.toMatchObject({ id: stored.id, recovered: true });
    expect(certificatesFor(batchId, 'grace@example.com')).toHaveLength(1);
  });

  it('the call was reset before the service stored it: the replay looks, finds nothing, and issues once', async () => {
    const batchId = await newBatch('Replay after a reset before commit');
    const input = { batch_id: batchId, name: 'Alan Turing', email: 'alan@example.com' };
    sb.controls.injectFaults({ kind: 'reset-before-commit', count: 1, match: { method: 'POST', path: `^/batches/${batchId}/recipients$` } });
    expect((await caught(issue(input))).name).toBe('AppError');
    expect(certificatesFor(batchId, 'alan@example.com')).toHaveLength(0);
    settle(batchId, 'alan@example.com');
    let replayed: Record<string, unknown> = {};
    expect(await requestsDuring(async () => (replayed = await issue(input)))).toEqual({ 'GET /batches/:id/recipients': 1, 'POST /batches/:id/recipients': 1 });
    expect(replayed).toMatchObject({ email: 'alan@example.com', skipped: false, recovered: false });
    expect(certificatesFor(batchId, 'alan@example.com')).toHaveLength(1);
  });
});

describe('the normal path', () => {
  it('asks the service what it asked before: the design once per batch (then cached), and one POST per certificate', async () => {
    const batchId = await newBatch('Normal path');
    const first = await requestsDuring(() => issue({ batch_id: batchId, name: 'One', email: 'one@example.com' }));
    expect(first).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1, 'POST /batches/:id/recipients': 1 });
    const second = await requestsDuring(() => issue({ batch_id: batchId, name: 'Two', email: 'two@example.com' }));
    expect(second).toEqual({ 'POST /batches/:id/recipients': 1 });
  });
});
