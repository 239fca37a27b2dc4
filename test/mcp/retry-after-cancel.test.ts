// Issue 35, item 2, through the official MCP client: the client cancels `issue_certificates` on
// its own timeout while the bulk call is still at the service (held 3 s there), and the agent
// calls again 1 s later, in a new session. Before, the new call's skip-existing read ran before
// the cancelled call's 100 landed: 600 certificates for 500 emails. The core's issue plan holds
// the emails of a run until their outcome is known, so the retry waits for them.
import { createClient } from '@certificate-service/sdk';
import { connect } from './harness';
import { DESIGN_NONE, startStub, type StubService } from '../sdk/stub-service';

jest.setTimeout(60_000);

const KEY = 'sk_test_stub_key_0123456789';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const recipients = Array.from({ length: 500 }, (_, i) => ({ name: `P${i}`, email: `p${i}@example.com` }));

let stub: StubService;
beforeEach(async () => {
  stub = await startStub({ batches: { b1: 'design_none' }, designs: [DESIGN_NONE], holdBulkMs: 3_000 });
});
afterEach(() => stub.close());

test('cancelled while its bulk call is held at the service, called again 1 s later in a new session: 500 certificates for 500 emails', async () => {
  const first = await connect({ client: createClient({ baseUrl: stub.baseUrl, apiKey: KEY }), confirmAbove: 1_000 });
  const stop = new AbortController();
  const cancelled = first.call('issue_certificates', { batchId: 'b1', recipients }, { signal: stop.signal }).catch((e: Error) => e);
  const deadline = Date.now() + 15_000;
  while (!stub.requests.some((r) => r.method === 'POST')) {
    if (Date.now() > deadline) throw new Error('the first bulk call never reached the stub');
    await pause(20);
  }
  stub.holdBulkMs = 0; // later calls are answered at once
  stop.abort(); // the client's own timeout: it sends notifications/cancelled and stops waiting
  expect(await cancelled).toBeInstanceOf(Error);
  await pause(1_000);

  const second = await connect({ client: createClient({ baseUrl: stub.baseUrl, apiKey: KEY }), confirmAbove: 1_000 });
  const retry = await second.call('issue_certificates', { batchId: 'b1', recipients });
  await first.close();
  await second.close();

  expect(retry.data).toMatchObject({ done: true, counts: { issued: 400, skipped: 100, total: 500 } });
  const emails = (stub.issued.get('b1') ?? []).map((r) => r.email.toLowerCase());
  expect(emails).toHaveLength(500);
  expect(new Set(emails).size).toBe(500);
});
