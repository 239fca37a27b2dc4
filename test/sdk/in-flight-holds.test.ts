// Issue 44, item 3: in-flight holds, plain. A wait for another run's emails ends on the host's
// sleep and clock (a deadline, not a timer of the core's own); IN_FLIGHT_ELSEWHERE is a known code
// with the issue-unknown hint; and a preview's reads never make an issue issue twice: its design
// variables go to the issue, its certificates are read again once the run holds its emails.
// Against the stub service of retry-stub.ts (it issues whatever it is sent, the first bulk call held 3 s).
import { countOutcomes, createClient, hostHint, type ErrorCode, type IssueOutcome } from '@certificate-service/sdk';
import { certificates, client, KEY, people, posts, retryStub } from './retry-stub';
import { until } from '../support/until';

jest.setTimeout(60_000);

const world = retryStub();
const reads = (path: string) => world.stub.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0] === path).length;

test('the wait for another run ends on the host\'s sleep and clock: 30 s of a fake clock pass at once, in sleeps of at most 1 s', async () => {
  const first = client(world.stub).issueMany(people(5));
  await until('the first issue call', () => posts(world.stub) > 0); // held 3 s at the stub
  let clock = 0;
  const slept: number[] = [];
  const fake = createClient({ baseUrl: world.stub.baseUrl, apiKey: KEY, now: () => clock, sleep: async (ms) => void (slept.push(ms), (clock += ms)) });
  const started = Date.now();
  const waited = await fake.issueMany(people(5));
  expect(Date.now() - started).toBeLessThan(2_000); // not the 3 s the holder's call takes, nor 30 s of timers
  expect(countOutcomes(waited)).toMatchObject({ unknown: 5 });
  expect(slept.reduce((a, b) => a + b, 0)).toBe(30_000);
  expect(Math.max(...slept)).toBeLessThanOrEqual(1_000);
  // A wake-up a second at most, not a poll every 100 ms (past the deadline, the other emails' waits end at once).
  expect(slept.filter((ms) => ms > 0).length).toBeLessThanOrEqual(30);
  await first;
  expect(certificates(world.stub)).toHaveLength(5);
});

test('IN_FLIGHT_ELSEWHERE is one of the known codes, an unknown outcome with the issue-unknown hint', async () => {
  const known: ErrorCode = 'IN_FLIGHT_ELSEWHERE'; // fails to compile when the code is outside the union
  const first = client(world.stub).issueMany(people(2)); // a bulk call: the stub holds it 3 s
  await until('the first issue call', () => posts(world.stub) > 0);
  const [outcome] = await client(world.stub).issueMany(people(2), { inFlightWaitMs: 100 });
  const error = (outcome as Extract<IssueOutcome, { kind: 'unknown' }>).error;
  expect(error).toMatchObject({ code: known, outcomeUnknown: true, phase: 'validation' });
  expect(error.hintTopic).toBe('issue-unknown');
  expect(error.hint).toMatch(/^It was not sent here, so nothing is issued twice\. Check the batch before issuing again/);
  expect(hostHint(error, { 'issue-unknown': 'Run it again.' })).toMatch(/issues only what is missing\. Run it again\.$/);
  await first;
});

describe('a preview, then the issue', () => {
  test('the issue takes the preview\'s design variables: the batch and its design are read once, the certificates twice', async () => {
    const c = client(world.stub);
    world.stub.holdBulkMs = 0;
    const preview = await c.previewIssue(people(3));
    expect(preview.variables).toEqual(new Map([['b1', []]])); // the stub's design lists none
    expect(countOutcomes(await c.issueMany(people(3), { variables: preview.variables }))).toMatchObject({ issued: 3 });
    expect([reads('/batches/b1'), reads('/designs'), reads('/batches/b1/recipients')]).toEqual([1, 1, 2]);
    // With the check off, the preview says so, and passing it on keeps it off.
    expect((await c.previewIssue(people(3), { variables: false })).variables).toBe(false);
  });

  test('emails issued by another run between the preview and the issue are skipped: the certificates are read again', async () => {
    world.stub.holdBulkMs = 0;
    const c = client(world.stub);
    const preview = await c.previewIssue(people(100));
    expect(preview.wouldIssue).toBe(100);
    // Another run (a retry in another process, say) issues 40 of them and ends before this issue starts.
    expect(countOutcomes(await client(world.stub).issueMany(people(40)))).toMatchObject({ issued: 40 });
    const outcomes = await c.issueMany(people(100), { variables: preview.variables });
    expect(countOutcomes(outcomes)).toMatchObject({ skipped: 40, issued: 60 });
    expect(certificates(world.stub)).toHaveLength(100);
    expect(new Set(certificates(world.stub)).size).toBe(100);
  });
});
