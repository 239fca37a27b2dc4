/**
 * The trigger never answers "duplicate" for a delivery that did not run, in a REAL n8n 2.41.1
 * in queue mode (main, 1 worker, 2 webhook processes behind nginx hashing on
 * X-Service-Delivery, Redis, Postgres). A Postgres trigger on `execution_entity` refuses or
 * holds the execution insert that the webhook process makes in WorkflowRunner.run (n8n's DB
 * ping, `SELECT 1`, still succeeds):
 *   - refused: the delivery is answered non-2xx by n8n, and its retry runs exactly once;
 *   - held: a copy sent while the first attempt is pending (its insert is seen waiting in
 *     pg_stat_activity) gets 503 + Retry-After and starts nothing; the first decides;
 *   - the sender gone before n8n answers: the status n8n writes decides.
 * `npm run test:queue` (with the rest of test/e2e/queue).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { createClient, type Recipient } from '@certificate-service/sdk';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../n8n/package-setup';
import { deliverUntilSettled, GAVE_UP, N8N_STARTED, postDelivery, settledExecutions } from '../../support/deliver';
import { startQueueN8n, type QueueN8n } from './harness';
import { triggerWorkflow } from '../n8n/workflows';
import { allExecutions, countByEvent, sql } from './support';
import { until } from '../../support/until';

jest.setTimeout(240_000);



describe('the instant trigger in queue mode: pending, claimed, released', () => {
  let sb: Sandbox;
  let q: QueueN8n;
  let extDir: string | undefined;
  let recipient: Recipient;
  let url = '';
  let secret = '';
  let workflowId = '';
  const db = (query: string) => sql(q.postgres.port, query);

  /** Holds (a row in e2e_hold) and/or refuses (a row in e2e_refuse) the execution inserts that start from now on. */
  function gateInserts(mode: { hold?: boolean; refuse?: boolean }): void {
    db(`DELETE FROM e2e_hold; DELETE FROM e2e_refuse;${mode.hold ? ' INSERT INTO e2e_hold VALUES (1);' : ''}${mode.refuse ? ' INSERT INTO e2e_refuse VALUES (1);' : ''}`);
  }
  /** Inserts that the gate is holding right now (their backends wait in pg_sleep). */
  const heldInserts = () => Number(db(`SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query ILIKE '%execution_entity%'`));

  const deliver = (deliveryId: string, opts: { abortAfterMs?: number } = {}) =>
    // A certificate per delivery id: the trigger claims the occurrence, so one certificate's deliveries would be duplicates.
    postDelivery(url, secret, { id: `whe_${deliveryId}`, type: 'certificate.issued', createdAt: new Date().toISOString(), data: { ...recipient, id: `${recipient.id}_${deliveryId}` } }, deliveryId, opts);

  /** Sends the delivery again while it is answered 503 (pending), as the service's retries would. */
  const deliverOnceSettled = (deliveryId: string) => deliverUntilSettled(() => deliver(deliveryId), 500);

  /** Successful executions that ran this delivery, once n8n's executions held still for 3 s with none pending. */
  async function runsOf(deliveryId: string): Promise<number> {
    const all = await settledExecutions(() => allExecutions(q.main, workflowId), 3_000, 90_000);
    return countByEvent(all.filter((e) => e.status === 'success')).get(`whe_${deliveryId}`) ?? 0;
  }

  beforeAll(async () => {
    ensurePackageBuilt();
    extDir = copyPackageToExtensionsDir(PACKAGE_DIR);
    sb = await createSandbox({ rateLimit: false });
    q = await startQueueN8n({ customExtensionsDir: extDir, workers: 1, webhooks: 2, concurrency: 5 });
    const ws = sb.controls.createWorkspace();
    const core = createClient({ baseUrl: sb.baseUrl, apiKey: ws.apiKey });
    recipient = await core.issueCertificate((await core.createBatch({ title: 'Queue pending', designId: 'design_classic' })).id, { name: 'Ada Queue', email: 'queue@example.com' });
    const cred = await q.main.createCredential('certificateServiceApi', 'cs', { apiKey: ws.apiKey, baseUrl: sb.url });
    const webhookId = randomUUID();
    const wf = await q.main.createWorkflow(triggerWorkflow('queue: trigger pending', webhookId, { id: cred.id, name: 'cs' }, { typeVersion: 2 }));
    workflowId = wf.id;
    await q.main.publish(workflowId);
    url = `${q.url}/webhook/${webhookId}/webhook`;
    secret = sb.controls.subscriptions(ws.workspaceId)[0].secret;
    // The gate: a BEFORE INSERT trigger on n8n's executions that refuses the insert when
    // e2e_refuse had a row as it began, after waiting while e2e_hold has one (each statement
    // reads it afresh).
    db(`CREATE TABLE e2e_hold (x int); CREATE TABLE e2e_refuse (x int);
      CREATE FUNCTION e2e_gate() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE refuse boolean := EXISTS (SELECT 1 FROM e2e_refuse);
      BEGIN
        WHILE EXISTS (SELECT 1 FROM e2e_hold) LOOP PERFORM pg_sleep(0.05); END LOOP;
        IF refuse THEN RAISE EXCEPTION 'e2e: the execution insert is refused'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER e2e_gate BEFORE INSERT ON execution_entity FOR EACH ROW EXECUTE FUNCTION e2e_gate();`);
  }, 10 * 60_000);

  afterAll(async () => {
    await q?.stop();
    await sb?.close();
    if (extDir) fs.rmSync(extDir, { recursive: true, force: true });
  });

  afterEach(() => gateInserts({}));

  it('the execution insert refused: n8n answers non-2xx (not "duplicate"), and the retry runs exactly once', async () => {
    gateInserts({ refuse: true });
    const refused = await deliver('whd_q_refused');
    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect(refused.body).not.toContain('duplicate');
    gateInserts({});
    const retry = await deliver('whd_q_refused');
    expect([retry.status, retry.body, retry.servedBy]).toEqual([200, N8N_STARTED, refused.servedBy]); // not "duplicate": it runs
    const webhookLogs = q.webhooks.map((w) => w.logs()).join('\n');
    expect(webhookLogs).toMatch(/Certificate Service Trigger: n8n answered 5\d\d to delivery whd_q_refused; the service will retry it, and the retry runs/);
    const again = await deliver('whd_q_refused');
    expect([again.status, JSON.parse(again.body)]).toEqual([200, { received: true, duplicate: true }]);
    expect(await runsOf('whd_q_refused')).toBe(1);
  });

  it.each([
    ['ran', false],
    ['was refused', true],
  ])('a copy while the first is pending (its insert held): 503 + Retry-After, starts nothing; the first %s, and that decides', async (_what, refuse) => {
    const id = `whd_q_held_${refuse ? 'refused' : 'ran'}`;
    gateInserts({ hold: true, refuse });
    const first = deliver(id);
    await until('the first attempt\'s insert to be held', () => heldInserts() > 0, 30_000, 100);
    const copy = await deliver(id);
    expect(copy).toMatchObject({ status: 503, retryAfter: '60' });
    expect(JSON.parse(copy.body)).toMatchObject({ error: 'DELIVERY_PENDING' });
    expect(heldInserts()).toBe(1); // the copy started no insert of its own
    gateInserts({}); // the held insert goes on (refused or not, as decided when it started)
    const firstAnswer = await first;
    expect(copy.servedBy).toBe(firstAnswer.servedBy); // nginx's hash: one process saw both
    if (refuse) {
      expect(firstAnswer.status).toBeGreaterThanOrEqual(500);
      const retry = await deliver(id);
      expect([retry.status, retry.body]).toEqual([200, N8N_STARTED]);
    } else {
      expect([firstAnswer.status, firstAnswer.body]).toEqual([200, N8N_STARTED]);
      expect(JSON.parse((await deliver(id)).body)).toEqual({ received: true, duplicate: true });
    }
    expect(await runsOf(id)).toBe(1);
  });

  it.each([
    ['200 (the run was enqueued): claimed, the next copy is a duplicate', false],
    ['500 (the insert refused): released, the next copy runs', true],
  ])('the sender gone before n8n answers: the status n8n writes decides: %s', async (_what, refuse) => {
    const id = `whd_q_gone_${refuse ? 'refused' : 'ran'}`;
    gateInserts({ hold: true, refuse });
    const first = deliver(id, { abortAfterMs: 3_000 });
    await until('the first attempt\'s insert to be held', () => heldInserts() > 0, 30_000, 100);
    // The sender gives up while n8n's insert is held; nginx then closes its connection to the
    // webhook process too (proxy_ignore_client_abort is off).
    expect(await first).toMatchObject({ status: 0, body: GAVE_UP });
    gateInserts({}); // the held insert goes on (refused or not, as decided when it started)
    const next = await deliverOnceSettled(id);
    expect(next.body).toEqual(refuse ? N8N_STARTED : JSON.stringify({ received: true, duplicate: true }));
    expect(await runsOf(id)).toBe(1);
  });
});
