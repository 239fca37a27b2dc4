/**
 * The trigger never answers "duplicate" for a delivery that did not run, in a REAL n8n 2.41.1
 * (one process, SQLite). n8n's execution insert is refused or slowed by a SQLite trigger on
 * `execution_entity` (n8n's own DB ping, `SELECT 1`, still succeeds):
 *   - refused: the delivery is answered non-2xx by n8n, and its retry runs exactly once;
 *   - slow: a copy sent while the first attempt is pending gets 503 + Retry-After and starts
 *     nothing, and the first attempt's outcome decides (ran: later copies are duplicates;
 *     refused: the next retry runs);
 *   - the sender gone before n8n answers: the status n8n writes on the closed socket still
 *     decides (the trigger reads it at res.end; 'finish' never fires).
 * Signed deliveries are sent by the test itself (as the service does, with the subscription's
 * secret), so each copy's timing is under control.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { Recipient } from '@certificate-service/sdk';
import type { Sandbox } from '@certificate-service/sandbox';
import { startPackageStack, type N8nInstance, type PackageStack } from './harness';
import { TRIGGER_NAME, triggerWorkflow } from './workflows';
import { deliverUntilSettled, GAVE_UP, N8N_STARTED, postDelivery, settledExecutions } from '../../support/deliver';

jest.setTimeout(180_000);

// node:sqlite (Node 22.5+) writes to n8n's database file next to n8n, as a second connection.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DatabaseSync } = require('node:sqlite') as typeof import('node:sqlite');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the instant trigger in a real n8n (one process, SQLite): pending, claimed, released', () => {
  let stack: PackageStack;
  let sb: Sandbox;
  let n8n: N8nInstance;
  let db: InstanceType<typeof DatabaseSync>;
  let url = '';
  let secret = '';
  let workflowId = '';
  let recipient: Recipient;
  /** Rows of e2e_slow whose triple cross join takes about SLOW_MS here. */
  let slowRows = 300;
  const SLOW_MS = 6_000;

  /** Makes n8n's execution insert slow (about SLOW_MS), then refused or let through. */
  function gateInserts(mode: { slow?: boolean; refuse?: boolean }): void {
    db.exec('DROP TRIGGER IF EXISTS e2e_gate');
    if (!mode.slow && !mode.refuse) return;
    const statements = [
      ...(mode.slow ? ['SELECT count(*) FROM e2e_slow a, e2e_slow b, e2e_slow c;'] : []),
      ...(mode.refuse ? ["SELECT RAISE(ABORT, 'e2e: the execution insert is refused');"] : []),
    ];
    db.exec(`CREATE TRIGGER e2e_gate BEFORE INSERT ON execution_entity BEGIN ${statements.join(' ')} END;`);
  }

  function fillSlowTable(rows: number): void {
    db.exec('DELETE FROM e2e_slow');
    const insert = db.prepare('INSERT INTO e2e_slow VALUES (?)');
    for (let i = 0; i < rows; i++) insert.run(i);
  }

  /** One attempt of the delivery, as the service makes it (test/support/deliver.ts). */
  const deliver = (deliveryId: string, opts: { abortAfterMs?: number } = {}) =>
    // A certificate per delivery id: the trigger claims the occurrence, so one certificate's deliveries would be duplicates.
    postDelivery(url, secret, { id: `whe_${deliveryId}`, type: 'certificate.issued', createdAt: new Date().toISOString(), data: { ...recipient, id: `${recipient.id}_${deliveryId}` } }, deliveryId, opts);

  /** Sends the delivery again while it is answered 503 (pending), as the service's retries would. */
  const deliverOnceSettled = (deliveryId: string) => deliverUntilSettled(() => deliver(deliveryId), 1_000);

  /**
   * How many executions ran this delivery (its event id in the trigger's output), once n8n's
   * executions held still for 2 s with none pending (n8n lists an execution a moment after it
   * answered the call that started it).
   */
  async function runsOf(deliveryId: string): Promise<number> {
    const all = await settledExecutions(() => n8n.executions(workflowId), 2_000, 60_000);
    return all.filter((e: any) => e.data?.resultData?.runData?.[TRIGGER_NAME]?.[0]?.data?.main?.[0]?.[0]?.json?.id === `whe_${deliveryId}`).length;
  }

  beforeAll(async () => {
    stack = await startPackageStack({ rateLimit: false });
    ({ sb, n8n } = stack);
    const { core } = stack;
    recipient = await core.issueCertificate((await core.createBatch({ title: 'Pending e2e', designId: 'design_classic' })).id, { name: 'Ada Pending', email: 'pending@example.com' });
    const webhookId = randomUUID();
    const wf = await n8n.createWorkflow(triggerWorkflow('e2e: trigger pending', webhookId, await stack.credential('cs'), { typeVersion: 2 }));
    workflowId = wf.id;
    await n8n.publish(wf.id);
    url = `${n8n.baseUrl}/webhook/${webhookId}/webhook`;
    secret = sb.controls.subscriptions().find((s) => s.url === url)!.secret;

    db = new DatabaseSync(path.join(n8n.userFolder, '.n8n', 'database.sqlite'));
    db.exec('PRAGMA busy_timeout = 60000'); // our DROP waits for n8n's slow insert to end
    db.exec('CREATE TABLE IF NOT EXISTS e2e_slow (x INTEGER)');
    // Calibrate the slow insert on this machine: the cross join grows with the cube of the rows.
    fillSlowTable(slowRows);
    const t = performance.now();
    db.prepare('SELECT count(*) FROM e2e_slow a, e2e_slow b, e2e_slow c').get();
    const ms = Math.max(1, performance.now() - t);
    slowRows = Math.round(slowRows * Math.cbrt(SLOW_MS / ms));
    fillSlowTable(slowRows);
  }, 15 * 60_000);

  afterAll(async () => {
    try {
      db?.close();
    } finally {
      await stack?.stop();
    }
  });

  afterEach(() => gateInserts({}));

  it.each(['empty-object', 'empty-array'] as const)('the service\'s test delivery with no recipient (sandbox testDelivery %s): answered 200 notCertificate, nothing runs', async (shape) => {
    const sub = sb.controls.subscriptions().find((s) => s.url === url)!;
    const before = (await n8n.executions(workflowId)).length;
    sb.controls.setTestDelivery(shape);
    try {
      const { deliveryId } = (await stack.core.testSubscription(sub.id)) as { deliveryId: string };
      const [attempt] = await sb.controls.waitForDeliveries((log) => log.some((a) => a.deliveryId === deliveryId), 30_000).then((log) => log.filter((a) => a.deliveryId === deliveryId));
      expect(attempt).toMatchObject({ status: 200, outcome: 'succeeded' });
      expect(JSON.parse(attempt.answer!)).toEqual({ received: true, notCertificate: true, ignored: shape === 'empty-array' ? 'data is an array, not a recipient' : 'data has no recipient id' });
    } finally {
      sb.controls.setTestDelivery('recipient');
    }
    await sleep(1_000); // n8n creates an execution before it answers; none may appear
    expect((await n8n.executions(workflowId)).length).toBe(before);
    expect(n8n.logs()).toMatch(/Certificate Service Trigger: delivery whd_\S+ \(certificate\.issued\) is not a certificate event/);
  });

  it('the execution insert refused: n8n answers non-2xx (not "duplicate"), and the retry runs exactly once', async () => {
    gateInserts({ refuse: true });
    const refused = await deliver('whd_refused');
    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect(refused.body).not.toContain('duplicate');
    expect(await runsOf('whd_refused')).toBe(0);

    gateInserts({});
    const retry = await deliver('whd_refused');
    expect([retry.status, retry.body]).toEqual([200, N8N_STARTED]); // not "duplicate": it runs
    expect(n8n.logs()).toMatch(/Certificate Service Trigger: n8n answered 5\d\d to delivery whd_refused; the service will retry it, and the retry runs/);
    const again = await deliver('whd_refused');
    expect([again.status, JSON.parse(again.body)]).toEqual([200, { received: true, duplicate: true }]);
    expect(await runsOf('whd_refused')).toBe(1);
  });

  it.each([
    ['ran', false],
    ['was refused', true],
  ])('a copy while the first is pending (its insert is slow): 503 + Retry-After, starts nothing; the first %s, and that decides', async (_what, refuse) => {
    const id = `whd_slow_${refuse ? 'refused' : 'ran'}`;
    gateInserts({ slow: true, refuse });
    const first = deliver(id);
    await sleep(1_500); // the first is in webhook() and n8n's insert well within SLOW_MS
    const copy = await deliver(id);
    expect(copy).toMatchObject({ status: 503, retryAfter: '60' });
    expect(JSON.parse(copy.body)).toMatchObject({ error: 'DELIVERY_PENDING' });
    const firstAnswer = await first;
    // The copy came and went while the first was still waiting for its insert.
    expect(firstAnswer.ms).toBeGreaterThan(copy.ms + 1_000);
    gateInserts({});
    if (refuse) {
      expect(firstAnswer.status).toBeGreaterThanOrEqual(500);
      expect(await runsOf(id)).toBe(0);
      const retry = await deliver(id);
      expect([retry.status, retry.body]).toEqual([200, N8N_STARTED]);
    } else {
      expect([firstAnswer.status, firstAnswer.body]).toEqual([200, N8N_STARTED]);
      const later = await deliver(id);
      expect(JSON.parse(later.body)).toEqual({ received: true, duplicate: true });
    }
    expect(await runsOf(id)).toBe(1);
  });

  it.each([
    ['200 (the run was stored): claimed, the next copy is a duplicate', false],
    ['500 (the insert refused): released, the next copy runs', true],
  ])('the sender gone before n8n answers: the status n8n writes on the closed socket decides: %s', async (_what, refuse) => {
    const id = `whd_gone_${refuse ? 'refused' : 'ran'}`;
    gateInserts({ slow: true, refuse });
    const gone = await deliver(id, { abortAfterMs: 1_500 });
    expect(gone).toMatchObject({ status: 0, body: GAVE_UP }); // as the service does after 10 s
    // n8n goes on with the first attempt. The gate is lifted once its insert is done (the DROP
    // waits for n8n's write), and a copy is answered 503 until n8n has answered the first.
    gateInserts({});
    const next = await deliverOnceSettled(id);
    expect(next.body).toEqual(refuse ? N8N_STARTED : JSON.stringify({ received: true, duplicate: true }));
    expect(await runsOf(id)).toBe(1);
  });
});
