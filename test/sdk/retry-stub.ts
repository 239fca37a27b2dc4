// What both files of "a retry never issues twice" share (retry-never-twice.test.ts in one process,
// retry-never-twice.process.test.ts across two): a stub service per test that issues whatever it
// is sent and holds the first bulk call 3 s, the people to issue, and what the stub saw.
import { createClient } from '@certificate-service/sdk';
import { DESIGN_NONE, startStub, type StubService } from './stub-service';

export const KEY = 'sk_test_stub_key_0123456789';
export const people = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => ({ batchId: 'b1', name: `P${i}`, email: `${prefix}${i}@example.com` }));
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const certificates = (s: StubService) => (s.issued.get('b1') ?? []).map((r) => r.email.toLowerCase());
export const posts = (s: StubService) => s.requests.filter((r) => r.method === 'POST').length;
export const client = (s: StubService) => createClient({ baseUrl: s.baseUrl, apiKey: KEY });

/** The test's stub (a fresh one before each test, closed after), there once `beforeEach` has run. */
export function retryStub(): { stub: StubService } {
  const world = {} as { stub: StubService };
  beforeEach(async () => {
    world.stub = await startStub({ batches: { b1: 'design_none' }, designs: [DESIGN_NONE], holdBulkMs: 3_000 });
  });
  afterEach(() => world.stub.close());
  return world;
}
