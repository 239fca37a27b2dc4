// Issue 41: Issue Certificate never issues twice after an unknown outcome. Its skip-existing is off
// by default, so a replay (Zapier's autoreplay, or Replay pressed in the Zap history) of a step
// whose issue call was sent but whose answer was lost issued a second certificate. Now the lost
// answer leaves a marker in z.cache (connection, batch, email), and a run that finds it looks the
// email up before issuing (zapier/src/lib/lost-answer.ts). nock plays the service; appTester's
// z.cache is core's local stand-in, and the cache service (support/zapier-cache-service.ts) plays
// Zapier's RPC where a test needs the cache to refuse or fail.
import nock from 'nock';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { CertificateServiceError } from '@certificate-service/sdk/core';
import { api, app, appTester, authData, caught, createAppHandler, designCached, freshCache, recipient, run, setupNock, zcache } from './mock-api';
import { designCacheKey } from '../../zapier/src/lib/design-check';
import { LOST_ANSWER_SETTLE_SECONDS, LOST_ANSWER_TTL_SECONDS, MARKER_WRITE_TIMEOUT_MS, lostAnswer, lostAnswerKey } from '../../zapier/src/lib/lost-answer';
import { REQUEST_DEADLINE_MS, ZAPIER_STEP_LIMIT_MS, clientFor, withClient } from '../../zapier/src/lib/client';
import { issueOne } from '../../zapier/src/creates/issue_certificate';
import { startCacheService, type CacheService, type CacheServiceOptions } from './support/zapier-cache-service';

setupNock();
beforeEach(() => {
  freshCache();
  designCached(['batch_1', 'batch_2']);
});

const ada = { batch_id: 'batch_1', name: 'Ada Lovelace', email: 'ada@example.com' };
const issue = (inputData: Record<string, unknown>) => run<Record<string, unknown>>('creates.issue_certificate.operation.perform', { inputData });
const POST = '/api/v1/batches/batch_1/recipients';
const LIST = '/api/v1/batches/batch_1/recipients';
const marker = (batchId = 'batch_1', email = 'ada@example.com') => lostAnswerKey(authData, batchId, email);
/** A marker left `secondsAgo` by a lost answer (how a replay finds it after that much time). */
const lostAgo = (secondsAgo: number, key = marker()) => (zcache()[key] = JSON.stringify({ at: Date.now() - secondsAgo * 1000 }));
const settled = LOST_ANSWER_SETTLE_SECONDS + 1;

describe('an issue call whose answer is lost', () => {
  it('leaves a marker (no email, no key in it) and fails with an error that says a replay is safe', async () => {
    api().post(POST).replyWithError('socket hang up');
    const before = Date.now();
    const error = await caught(issue(ada));
    expect(error.name).toBe('AppError');
    expect(String(error.json?.message)).toMatch(/^Outcome unknown: POST \/batches\/batch_1\/recipients for ada@example\.com/);
    expect(String(error.json?.message)).toMatch(/Replaying this step within 7 days is safe: it first looks this email up in the batch/);
    const stored = JSON.parse(zcache()[marker()]) as { at: number };
    expect(stored).toEqual({ at: expect.any(Number) });
    expect(stored.at).toBeGreaterThanOrEqual(before);
    expect(JSON.stringify(zcache())).not.toMatch(/ada@example\.com|sk_live/);
  });

  it('a 5xx answer to the issue call is a lost answer too', async () => {
    api().post(POST).reply(502, '<html>Bad gateway</html>');
    await caught(issue(ada));
    expect(zcache()[marker()]).toBeDefined();
  });

  it('an answer that says what happened leaves no marker', async () => {
    api().post(POST).reply(402, { error: 'QUOTA_EXCEEDED', message: 'Quota used up.', detail: {} });
    await caught(issue(ada));
    expect(zcache()[marker()]).toBeUndefined();
  });
});

describe('a replay after a lost answer', () => {
  it(`within ${LOST_ANSWER_SETTLE_SECONDS} s is throttled until the call can have landed: nothing is read or sent`, async () => {
    lostAgo(10);
    const error = await caught(issue(ada));
    expect(error.name).toBe('ThrottledError');
    expect(Number(error.json?.delay)).toBeGreaterThanOrEqual(LOST_ANSWER_SETTLE_SECONDS - 10);
    expect(Number(error.json?.delay)).toBeLessThanOrEqual(LOST_ANSWER_SETTLE_SECONDS - 9);
    expect(zcache()[marker()]).toBeDefined();
  });

  it('finds the certificate the lost call issued: returned, marked skipped and recovered; nothing issued; the marker goes', async () => {
    lostAgo(settled);
    const existing = recipient({ id: 'rec_lost', email: 'ADA@example.com', certificateId: 'CERT-2025-000009-0009' });
    api().get(LIST).query({ limit: 100 }).reply(200, { data: [recipient({ id: 'rec_other', email: 'bob@example.com' }), existing] });
    await expect(issue(ada)).resolves.toMatchObject({ id: 'rec_lost', certificateId: 'CERT-2025-000009-0009', skipped: true, recovered: true });
    expect(zcache()[marker()]).toBeUndefined();
    // The next run for the email issues as before (Skip If Already Issued is off): one POST, no lookup.
    api().post(POST).reply(201, recipient({ id: 'rec_next' }));
    await expect(issue(ada)).resolves.toMatchObject({ id: 'rec_next', skipped: false, recovered: false });
  });

  it('finds no certificate (the call never landed): issues once, and the marker goes', async () => {
    lostAgo(settled);
    api().get(LIST).query({ limit: 100 }).reply(200, { data: [recipient({ id: 'rec_other', email: 'bob@example.com' })] });
    const posts: unknown[] = [];
    api()
      .post(POST)
      .reply(201, (_uri, body) => (posts.push(body), recipient({ id: 'rec_new' })));
    await expect(issue(ada)).resolves.toMatchObject({ id: 'rec_new', skipped: false, recovered: false });
    expect(posts).toHaveLength(1);
    expect(zcache()[marker()]).toBeUndefined();
  });

  it('is lost again: the marker is written anew and the lookup comes first next time too', async () => {
    lostAgo(settled);
    api().get(LIST).query({ limit: 100 }).reply(200, { data: [] });
    api().post(POST).replyWithError('socket hang up');
    const error = await caught(issue(ada));
    expect(error.name).toBe('AppError');
    expect(Date.now() - (JSON.parse(zcache()[marker()]) as { at: number }).at).toBeLessThan(5_000);
  });

  it('the marker is per batch and per email (the email as the core keys it: trimmed, any case)', async () => {
    lostAgo(settled);
    // Another email in the same batch, the same email in another batch: one POST each, no lookup.
    api().post(POST, (body) => body.email === 'bob@example.com').reply(201, recipient({ id: 'rec_bob', email: 'bob@example.com' }));
    await expect(issue({ ...ada, name: 'Bob', email: 'bob@example.com' })).resolves.toMatchObject({ id: 'rec_bob', recovered: false });
    api().post('/api/v1/batches/batch_2/recipients').reply(201, recipient({ id: 'rec_b2', batchId: 'batch_2' }));
    await expect(issue({ ...ada, batch_id: 'batch_2' })).resolves.toMatchObject({ id: 'rec_b2', recovered: false });
    expect(zcache()[marker()]).toBeDefined();
    // The same email written otherwise, and the batch with a space: the marker is found.
    api().get(LIST).query({ limit: 100 }).reply(200, { data: [recipient({ id: 'rec_lost', email: 'ada@example.com' })] });
    await expect(issue({ ...ada, batch_id: ' batch_1 ', email: ' ADA@Example.COM ' })).resolves.toMatchObject({ id: 'rec_lost', recovered: true });
  });

  it('with Skip If Already Issued on, the issue plan\'s own batch read settles it: one read, no second lookup', async () => {
    lostAgo(settled);
    api().get(LIST).query({ limit: 100 }).reply(200, { data: [recipient({ id: 'rec_lost', email: 'ada@example.com' })] });
    await expect(issue({ ...ada, skip_existing: 'true' })).resolves.toMatchObject({ id: 'rec_lost', skipped: true, recovered: true });
    expect(zcache()[marker()]).toBeUndefined();
  });

  it('a lookup that fails fails the step before anything is issued, and keeps the marker', async () => {
    lostAgo(settled);
    api().get(LIST).query({ limit: 100 }).times(3).reply(503, 'unavailable');
    const error = await caught(issue(ada));
    expect(error.name).toBe('AppError');
    expect(zcache()[marker()]).toBeDefined();
  });
});

describe('the normal path', () => {
  it('makes the one POST it made before, writes nothing to z.cache, and reads it once more (the marker, beside the design)', async () => {
    const requests: string[] = [];
    const scope = api().post(POST).reply(201, recipient());
    scope.on('request', (req: { method: string; path: string }) => requests.push(`${req.method} ${req.path}`));
    const cache = zcache();
    const reads: string[] = [];
    const writes: string[] = [];
    (appTester as unknown as { zcacheTestObj: object }).zcacheTestObj = new Proxy(cache, {
      // core's stand-in reads `key in cache` (create-rpc-client.js rpcCacheMock); lodash's checks ask for symbols.
      has: (target, key) => (typeof key === 'string' && reads.push(key), key in target),
      set: (target, key, value) => (writes.push(String(key)), Reflect.set(target, key, value)),
    });
    await expect(issue(ada)).resolves.toMatchObject({ id: 'rec_1', skipped: false, recovered: false });
    expect(requests).toEqual(['POST /api/v1/batches/batch_1/recipients']);
    expect(reads.sort()).toEqual([designCacheKey(authData, 'batch_1'), marker()].sort());
    expect(writes).toEqual([]);
  });
});

describe('when Zapier\'s cache cannot hold the marker', () => {
  // Through core's Lambda handler and its real RPC client, against the stand-in cache service.
  const handler = createAppHandler(app);
  let service: CacheService | undefined;
  const previousDeployKey = process.env.ZAPIER_DEPLOY_KEY;
  beforeAll(() => {
    process.env.ZAPIER_DEPLOY_KEY = 'test-deploy-key'; // how core's RPC client authenticates outside a Lambda
    nock.enableNetConnect('127.0.0.1');
  });
  afterAll(() => {
    if (previousDeployKey === undefined) delete process.env.ZAPIER_DEPLOY_KEY;
    else process.env.ZAPIER_DEPLOY_KEY = previousDeployKey;
  });
  // zapier-platform-core's z.console prints here; the tests read what the step logged.
  let logs: string[] = [];
  let consoleLog: jest.SpyInstance;
  beforeEach(() => {
    logs = [];
    consoleLog = jest.spyOn(console, 'log').mockImplementation((...args) => void logs.push(args.join(' ')));
  });
  afterEach(async () => {
    consoleLog.mockRestore();
    await service?.close();
    service = undefined;
  });
  async function perform(options: CacheServiceOptions): Promise<{ svc: CacheService; error: Awaited<ReturnType<typeof caught>> }> {
    const svc = (service = await startCacheService(options));
    svc.store.set(designCacheKey(authData, 'batch_1'), '[]');
    const error = await caught(
      handler({
        command: 'execute',
        method: 'creates.issue_certificate.operation.perform',
        bundle: { authData, inputData: ada },
        rpc_base: svc.url,
      }),
    );
    return { svc, error };
  }

  it('a refused write (Zapier answers false, stores nothing): the step is halted, so autoreplay leaves it, and says a replay would issue again', async () => {
    api().post(POST).replyWithError('socket hang up');
    const { svc, error } = await perform({ refuseSets: true });
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/Outcome unknown: .*could not be recorded in Zapier's cache, so a replay would issue it again: look the email up first \(Find Certificate by Email\)/);
    // It read the marker back before saying so.
    expect(svc.calls.map((c) => c.method).slice(-2)).toEqual(['zcache_set', 'zcache_get']);
    expect(svc.calls.find((c) => c.method === 'zcache_set')?.params).toEqual([marker(), expect.stringMatching(/^\{"at":\d+\}$/), LOST_ANSWER_TTL_SECONDS, null, null]);
  });

  it('a failing cache: the marker cannot be read either, so the email is looked up before issuing; then the step is halted', async () => {
    // Design reads too: the design cache fails with it.
    api().get('/api/v1/batches/batch_1').reply(200, { id: 'batch_1', title: 'B', designId: 'design_none', status: 'active' });
    api().get('/api/v1/designs').reply(200, { data: [{ id: 'design_none' }], nextCursor: null });
    api().get(LIST).query({ limit: 100 }).reply(200, { data: [] });
    api().post(POST).replyWithError('socket hang up');
    const { error } = await perform({ broken: true });
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/could not be recorded/);
    expect(logs.join('\n')).toMatch(/Lost-answer check: the cache could not be read .*; the email is looked up before issuing/);
    expect(logs.join('\n')).toMatch(/Lost-answer marker not stored: RPC request failed/);
  });

  it('a marker Zapier\'s cache holds makes the next run of another invocation look the email up', async () => {
    api().post(POST).replyWithError('socket hang up');
    const { svc } = await perform({});
    expect(svc.store.has(marker())).toBe(true);
    svc.store.set(marker(), JSON.stringify({ at: Date.now() - settled * 1000 }));
    api().get(LIST).query({ limit: 100 }).reply(200, { data: [recipient({ id: 'rec_lost' })] });
    const replay = (await handler({ command: 'execute', method: 'creates.issue_certificate.operation.perform', bundle: { authData, inputData: ada }, rpc_base: svc.url })) as { results: unknown };
    expect(replay.results).toMatchObject({ id: 'rec_lost', recovered: true });
    expect(svc.store.has(marker())).toBe(false);
  });
});

describe('a marker write that hangs', () => {
  it(`is given up after ${MARKER_WRITE_TIMEOUT_MS / 1000} s, so the step is halted (not cut off by Zapier unmarked, then autoreplayed)`, async () => {
    const lostCall = new CertificateServiceError({
      code: 'NETWORK_ERROR',
      message: 'Outcome unknown: POST /batches/batch_1/recipients for ada@example.com was sent but no reliable answer came back.',
      outcomeUnknown: true,
      request: { method: 'POST', path: '/batches/batch_1/recipients', route: '/batches/{batchId}/recipients', recipients: ['ada@example.com'] },
    });
    const started = Date.now();
    const error = await caught(
      appTester(async (z: ZObject) => {
        const hanging = { ...z, console: { ...z.console, log: () => undefined }, cache: { ...z.cache, set: () => new Promise<boolean>(() => undefined) } } as ZObject;
        throw await lostAnswer(hanging, marker()).record(lostCall);
      }),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(MARKER_WRITE_TIMEOUT_MS - 50);
    expect(Date.now() - started).toBeLessThan(MARKER_WRITE_TIMEOUT_MS + 1_000);
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/could not be recorded/);
  });
});

describe('a step that runs into Zapier\'s time limit', () => {
  it('the numbers: requests end by 24 s, the marker write gets 4 s, Zapier stops the step at 30 s', () => {
    expect(REQUEST_DEADLINE_MS + MARKER_WRITE_TIMEOUT_MS).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
  });

  it('an issue call with no answer by the deadline is an unknown outcome (a timeout), marked before the step ends', async () => {
    api().post(POST).delay(1_500).reply(201, recipient());
    // The step as withClient runs it, but started 23.5 s ago: its requests have 0.5 s left.
    const late = withClient((_client, z, bundle: Bundle) => issueOne(clientFor(z, bundle, Date.now() - REQUEST_DEADLINE_MS + 500), z, bundle));
    const started = Date.now();
    const error = await caught(appTester(late, { authData, inputData: ada }));
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(error.name).toBe('AppError');
    expect(String(error.json?.message)).toMatch(/^Outcome unknown: POST \/batches\/batch_1\/recipients for ada@example\.com was sent but no reliable answer came back \(.*timed out \(no answer by 24 s into the step, which Zapier stops at 30 s\)/);
    expect(String(error.json?.message)).toMatch(/Replaying this step within 7 days is safe/);
    expect(zcache()[marker()]).toBeDefined();
  });
});
