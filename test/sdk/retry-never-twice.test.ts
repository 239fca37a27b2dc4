// Issue 35, item 2: a retry never issues twice. Against a stub service that issues whatever it is
// sent (no refusal of a second certificate for an email) and can hold a bulk call, the issue's
// timing: 500 emails, the first run's bulk call held 3 s at the service, the run cancelled, a
// retry 1 s later. Before, the retry's skip-existing read ran before the held 100 landed: 600
// certificates for 500 emails. In one process (the registry) here; across two (file markers):
// retry-never-twice.process.test.ts, which `npm test` runs and `npm run test:unit` leaves out.
import os from 'node:os';
import path from 'node:path';
import { countOutcomes, createClient, stateDir, type IssueOutcome } from '@certificate-service/sdk';
import { markerState, processStart } from '../../shared/sdk/src/in-flight-files';
import { certificates, client, KEY, pause, people, posts, retryStub } from './retry-stub';
import { until } from '../support/until';

jest.setTimeout(60_000);

const world = retryStub();

/** Once the first bulk call is at the service: later calls are answered at once. */
async function firstCallHeld(): Promise<void> {
  await until('the first issue call', () => posts(world.stub) > 0);
  world.stub.holdBulkMs = 0;
}

describe('in one process', () => {
  test('500 emails, the first run cancelled while its bulk call is held 3 s, a retry 1 s later: exactly 500 certificates', async () => {
    const stop = new AbortController();
    const first = client(world.stub).issueMany(people(500), { signal: stop.signal });
    await firstCallHeld();
    stop.abort(); // the caller cancelled (an MCP client's own timeout); its call is still at the service
    await pause(1_000);
    const retry = await client(world.stub).issueMany(people(500)); // another client, as a new MCP session makes
    const firstOutcomes = await first;

    expect(countOutcomes(firstOutcomes)).toMatchObject({ issued: 100, notSent: 400 });
    expect(countOutcomes(retry)).toMatchObject({ skipped: 100, issued: 400, total: 500 });
    // The skipped ones carry the certificate the first run issued.
    expect(retry[0]).toMatchObject({ kind: 'skipped', recipient: { id: (firstOutcomes[0] as Extract<IssueOutcome, { kind: 'issued' }>).recipient.id } });
    expect(certificates(world.stub)).toHaveLength(500);
    expect(new Set(certificates(world.stub)).size).toBe(500);
  });

  test('a retry while the first run is still going waits for it and issues nothing twice', async () => {
    const first = client(world.stub).issueMany(people(500));
    await firstCallHeld();
    await pause(1_000);
    const retry = await client(world.stub).issueMany(people(500));
    expect(countOutcomes(await first)).toMatchObject({ issued: 500 });
    expect(countOutcomes(retry)).toMatchObject({ skipped: 500 });
    expect(certificates(world.stub)).toHaveLength(500);
  });

  test('the wait is bounded by inFlightWaitMs and by the waiting run\'s own signal: what is still held ends unknown and is not sent', async () => {
    const first = client(world.stub).issueMany(people(200));
    await until('the first issue call', () => posts(world.stub) > 0); // held 3 s
    const bounded = await client(world.stub).issueMany(people(200), { inFlightWaitMs: 300 });
    expect(countOutcomes(bounded)).toMatchObject({ unknown: 200 });
    expect(bounded[0]).toMatchObject({ ok: false, error: { code: 'IN_FLIGHT_ELSEWHERE', outcomeUnknown: true } });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const stopped = await client(world.stub).issueMany(people(200), { signal: stop.signal });
    expect(countOutcomes(stopped)).toMatchObject({ unknown: 200 });
    expect(posts(world.stub)).toBe(1); // only the first run's call so far
    await first;
    expect(certificates(world.stub)).toHaveLength(200);
  });

  test('an email whose outcome is unknown in the other run (sent, answer unreadable) is not sent again: unknown here too', async () => {
    world.stub.garbleNextBulk = true; // the held call lands, then answers a body no reader knows
    const first = client(world.stub).issueMany(people(3));
    await until('the first issue call', () => posts(world.stub) > 0);
    const retry = await client(world.stub).issueMany(people(3));
    const firstOutcomes = await first;
    expect(countOutcomes(firstOutcomes)).toMatchObject({ unknown: 3 });
    expect(countOutcomes(retry)).toMatchObject({ unknown: 3 });
    expect(retry[0]).toMatchObject({ error: { code: 'IN_FLIGHT_ELSEWHERE', message: expect.stringMatching(/its outcome there is unknown/) } });
    expect(posts(world.stub)).toBe(1);
    // Once the first run has ended, a run reads the batch and skips what landed.
    expect(countOutcomes(await client(world.stub).issueMany(people(3)))).toMatchObject({ skipped: 3 });
    expect(certificates(world.stub)).toHaveLength(3);
  });

  test('another service (another key) shares no hold', async () => {
    const first = client(world.stub).issueMany(people(100));
    await until('the first issue call', () => posts(world.stub) > 0);
    world.stub.holdBulkMs = 0;
    // Same emails with another key: not waited for (the stub, unlike a service, takes any key).
    const other = await createClient({ baseUrl: world.stub.baseUrl, apiKey: `${KEY}_other` }).issueMany(people(100));
    expect(countOutcomes(other)).toMatchObject({ issued: 100 });
    await first;
  });
});

describe('file markers (the state folder), without a second process', () => {
  test('markers from a killed process: recognised by pid and start time, held while their call may be at the service', () => {
    const policy = { orphanSettleMs: 60_000, maxLiveMs: 3_600_000, now: 1_000_000 };
    const me = { pid: process.pid, host: os.hostname(), procStart: processStart(process.pid), createdAt: 990_000 };
    expect(markerState(me, 0, policy)).toBe('live');
    // The same pid with another start time: the pid was reused, the marker's process is gone.
    if (me.procStart !== undefined) expect(markerState({ ...me, procStart: `${me.procStart}1` }, 0, policy)).toBe('stale');
    const dead = { ...me, pid: 2 ** 22 + 12_345 }; // above Linux's pid_max: no such process
    expect(markerState(dead, 0, policy)).toBe('stale'); // never sent: taken over at once
    expect(markerState({ ...dead, sentAt: 980_000 }, 0, policy)).toBe('settling'); // sent 20 s ago
    expect(markerState({ ...dead, sentAt: 930_000 }, 0, policy)).toBe('stale'); // sent 70 s ago
    expect(markerState({ ...me, createdAt: 1_000_000 - 3_600_000 }, 0, policy)).toBe('stale'); // older than the bound
    expect(markerState(undefined, 990_000, policy)).toBe('settling'); // half-written: as if sent when made
  });

  test('stateDir(): CERTSVC_STATE_DIR, else XDG_STATE_HOME/certsvc, else ~/.local/state/certsvc', () => {
    expect(stateDir({ CERTSVC_STATE_DIR: '/srv/state' })).toBe('/srv/state');
    expect(stateDir({ XDG_STATE_HOME: '/x/state' })).toBe('/x/state/certsvc');
    expect(stateDir({ CERTSVC_STATE_DIR: ' ', XDG_STATE_HOME: '' })).toBe(path.join(os.homedir(), '.local/state/certsvc'));
  });
});
