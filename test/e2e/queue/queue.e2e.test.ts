/**
 * n8n-nodes-certificate-service in a REAL n8n 2.41.1 in queue mode: Redis, Postgres, main,
 * 2 workers and 2 webhook processes behind nginx (hash $http_x_service_delivery consistent),
 * the sandbox as the service. `npm run test:queue` (not part of `npm test`).
 *
 * The steps share one topology and run in order. Measured figures are printed and written to
 * test/e2e/queue/last-run.json (git-ignored); the README quotes them.
 */
import * as fs from 'node:fs';
import { claimKey, createClient, type CertificateServiceClient } from '@certificate-service/sdk';
import type { Recipient, WebhookEvent } from '@certificate-service/sdk/core';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { copyPackageToExtensionsDir, ensurePackageBuilt, PACKAGE_DIR } from '../n8n/package-setup';
import { startQueueN8n, type QueueN8n } from './harness';
import { triggerWorkflow, verifyWorkflow } from '../n8n/workflows';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '../../support/until';
import { allExecutions, countByEvent, deliver, figureLog, savedStaticData, settledExecutions, sql } from './support';
import { captureReceiver, occurrencesOf, outcomes, send, sendTogether, summarize, verifyRuns, type Occurrence } from './verify-copies';
import { executionPages } from '../n8n/harness';
import { settledExecutions as settledOf } from '../../support/deliver';

jest.setTimeout(300_000);

const { record, save } = figureLog('queue', 'last-run.json');

describe('n8n queue mode: main + 2 workers + 2 webhook processes behind nginx', () => {
  let sb: Sandbox;
  let q: QueueN8n;
  let extDir: string | undefined;
  let core: CertificateServiceClient;
  let workspaceId: string;
  let credential: { id: string; name: string };
  let workflowId: string;
  let subscriptionUrl: string;
  let batchId: string;
  const secret = () => sb.controls.subscriptions(workspaceId)[0].secret;

  /** Issues `n` certificates in one bulk call (one certificate.issued event each). */
  async function issue(n: number, tag: string): Promise<Recipient[]> {
    const items = Array.from({ length: n }, (_, i) => ({ name: `Person ${tag} ${i}`, email: `${tag}-${i}@example.com` }));
    const outcomes = await core.issueMany(items.map((it) => ({ batchId, ...it })));
    return outcomes.map((o) => {
      if (!o.ok || !o.recipient) throw new Error(`issue failed: ${JSON.stringify(o)}`);
      return o.recipient;
    });
  }

  /** A certificate the service never issued: a real one's fields under fresh ids. */
  const unissued = (r: Recipient, tag: string): Recipient => ({ ...r, id: `rec_${tag}`, certificateId: `CERT-${tag}`, email: `${tag}@example.com` });
  const eventFor = (id: string, recipient: Recipient): WebhookEvent => ({
    id,
    type: 'certificate.issued',
    createdAt: new Date().toISOString(),
    data: recipient as unknown as WebhookEvent['data'],
  });

  beforeAll(async () => {
    ensurePackageBuilt();
    extDir = copyPackageToExtensionsDir(PACKAGE_DIR);
    // The service's real limit (120 requests / 60 s per key); retries scaled down.
    sb = await createSandbox({ timeScale: 0.001, mailDelayMs: 5 });
    const t = Date.now();
    q = await startQueueN8n({ customExtensionsDir: extDir, workers: 2, webhooks: 2, concurrency: 10 });
    record('topologyStartSeconds', Math.round((Date.now() - t) / 100) / 10);
    const ws = sb.controls.createWorkspace({ quota: 10_000 });
    workspaceId = ws.workspaceId;
    core = createClient({ baseUrl: sb.baseUrl, apiKey: sb.controls.createApiKey(workspaceId).apiKey });
    batchId = (await core.createBatch({ title: 'Queue mode', designId: 'design_classic' })).id;
    credential = { ...(await q.main.createCredential('certificateServiceApi', 'cs', { apiKey: ws.apiKey, baseUrl: sb.url })), name: 'cs' };
  });

  afterAll(async () => {
    await q?.stop();
    await sb?.close();
    if (extDir) fs.rmSync(extDir, { recursive: true, force: true });
    save();
  });

  it('routes /webhook/ to the webhook processes and everything else (/webhook-test/, the API) to main', async () => {
    const webhookPorts = q.webhooks.map((w) => `127.0.0.1:${w.port}`);
    const prod = await fetch(`${q.url}/webhook/nothing-here`, { method: 'POST' });
    expect(webhookPorts).toContain(prod.headers.get('x-served-by'));
    const test = await fetch(`${q.url}/webhook-test/nothing-here`, { method: 'POST' });
    expect(test.headers.get('x-served-by')).toBe(`127.0.0.1:${q.main.port}`);
    expect(test.status).toBe(404); // main's own answer for an unregistered test webhook
    // main does not serve production webhooks (N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true)
    expect((await fetch(`${q.main.baseUrl}/webhook/nothing-here`, { method: 'POST' })).status).toBe(404);
  });

  it('publishing subscribes the load balancer URL once', async () => {
    sb.controls.resetCounters();
    const wf = await q.main.createWorkflow(triggerWorkflow('Queue trigger', 'queue-trigger', credential));
    workflowId = wf.id;
    await q.main.publish(workflowId);
    const subs = sb.controls.subscriptions(workspaceId);
    expect(subs).toHaveLength(1);
    subscriptionUrl = subs[0].url;
    expect(subscriptionUrl).toBe(`${q.url}/webhook/queue-trigger/webhook`);
    record('publishCalls', sb.controls.counters().requests.byRoute);
  });

  // Deliveries whose first copy ran before the webhook processes restart.
  let originals: Array<{ event: WebhookEvent; deliveryId: string }> = [];
  let seenOnce: Array<{ event: WebhookEvent; deliveryId: string }> = [];

  it('exactly once through the load balancer: 2 copies at once, a 3rd 2 s later, a 4th 70 s later → 1 execution each', async () => {
    const K = 12;
    // The service itself sends every delivery twice at once (its at-least-once duplicates).
    sb.controls.setDuplicateDeliveries(2);
    const recipients = await issue(K, 'once');
    // A copy that finds the other still pending is answered 503 (DELIVERY_PENDING) and retried.
    const log = await sb.controls.waitForDeliveries((l) => l.filter((d) => d.outcome === 'succeeded').length >= 2 * K, 60_000);
    sb.controls.setDuplicateDeliveries(1);
    const byEvent = new Map<string, string>();
    for (const d of log) byEvent.set(d.eventId, d.deliveryId);
    const events = sb.controls.events().filter((e) => e.type === 'certificate.issued');
    originals = events.map((e) => ({
      event: eventFor(e.id, recipients.find((r) => r.id === e.recipientId)!),
      deliveryId: byEvent.get(e.id)!,
    }));
    expect(originals).toHaveLength(K);
    expect(log.filter((d) => d.outcome !== 'retrying').every((d) => d.status === 200)).toBe(true);
    expect(log.filter((d) => d.outcome === 'retrying').every((d) => d.status === 503 && d.answer?.includes('DELIVERY_PENDING'))).toBe(true);
    record('pendingCopiesAnswered503', log.filter((d) => d.outcome === 'retrying').length);

    // Round robin, for comparison: the same pattern through an nginx without the hash.
    const rr = await q.addBalancer('round-robin');
    const rrUrl = subscriptionUrl.replace(q.url, rr.url);
    // Certificates of their own (fresh ids on a real one's fields): receivers claim the occurrence,
    // so events of the originals' certificates would only be duplicates of them.
    const rrDeliveries = recipients.map((r, i) => ({ event: eventFor(`whe_rr_${i}`, unissued(r, `rr_${i}`)), deliveryId: `whd_rr_${i}` }));
    await Promise.all(rrDeliveries.flatMap((d) => [deliver(rrUrl, secret(), d.event, d.deliveryId), deliver(rrUrl, secret(), d.event, d.deliveryId)]));

    await sleep(2_000);
    const servedBy = new Map<string, Set<string>>();
    const note = (id: string, by: string) => servedBy.set(id, (servedBy.get(id) ?? new Set()).add(by));
    for (const d of originals) {
      const sent = await deliver(subscriptionUrl, secret(), d.event, d.deliveryId);
      expect(sent.status).toBe(200);
      expect(JSON.parse(sent.body)).toMatchObject({ duplicate: true });
      note(d.deliveryId, sent.servedBy);
    }
    for (const d of rrDeliveries) await deliver(rrUrl, secret(), d.event, d.deliveryId);

    await sleep(68_000);
    for (const d of originals) {
      const sent = await deliver(subscriptionUrl, secret(), d.event, d.deliveryId);
      expect(JSON.parse(sent.body)).toMatchObject({ duplicate: true });
      note(d.deliveryId, sent.servedBy);
    }

    const counts = countByEvent(await settledExecutions(q.main, workflowId));
    const perOriginal = originals.map((d) => counts.get(d.event.id) ?? 0);
    const rrExecutions = rrDeliveries.reduce((n, d) => n + (counts.get(d.event.id) ?? 0), 0);
    const processesUsed = new Set([...servedBy.values()].flatMap((s) => [...s]));
    record('exactlyOnce', {
      deliveries: K,
      copiesEach: 4,
      executions: perOriginal.reduce((a, b) => a + b, 0),
      webhookProcessesUsed: processesUsed.size,
      everyCopyOfADeliveryOnOneProcess: [...servedBy.values()].every((s) => s.size === 1),
    });
    record('roundRobinComparison', { deliveries: K, copiesEach: 3, executions: rrExecutions });
    expect(perOriginal).toEqual(originals.map(() => 1));
    expect([...servedBy.values()].every((s) => s.size === 1)).toBe(true);
    expect(processesUsed.size).toBe(2);
  });

  it('static data: a duplicate stores its id (that call starts no execution); a delivery that ran once is not stored', async () => {
    // Certificates the service never issued, so it sends no delivery of its own for them (that
    // would claim the same occurrence first): each test delivery is its own occurrence.
    const template = originals[0].event.data as unknown as Recipient;
    seenOnce = Array.from({ length: 8 }, (_, i) => ({ event: eventFor(`whe_once_${i}`, unissued(template, `once_${i}`)), deliveryId: `whd_once_${i}` }));
    for (const d of seenOnce) expect((await deliver(subscriptionUrl, secret(), d.event, d.deliveryId)).status).toBe(200);
    await settledExecutions(q.main, workflowId);
    const stored: string[] = savedStaticData(q.postgres.port, workflowId)['node:Certificate Service Trigger']?.deliveryIds ?? [];
    // Static data keeps claims: the occurrence of a certificate event (claimKey), not the delivery id.
    const originalsStored = originals.filter((d) => stored.includes(claimKey(d.event, d.deliveryId))).length;
    const onceStored = seenOnce.filter((d) => stored.includes(claimKey(d.event, d.deliveryId))).length;
    record('staticDataBeforeRestart', { duplicatedDeliveriesStored: `${originalsStored}/${originals.length}`, seenOnceStored: `${onceStored}/${seenOnce.length}` });
    expect(onceStored).toBe(0); // n8n 2.41 does not save static data of a webhook() call that starts an execution
    expect(originalsStored).toBe(originals.length);
  });

  it('after a restart of both webhook processes: stored ids still start nothing; an id seen only once runs again', async () => {
    const before = (await allExecutions(q.main, workflowId, false)).length;
    const t = Date.now();
    await q.restartWebhooks();
    record('webhookRestartSeconds', Math.round((Date.now() - t) / 100) / 10);
    for (const d of originals) expect(JSON.parse((await deliver(subscriptionUrl, secret(), d.event, d.deliveryId)).body)).toMatchObject({ duplicate: true });
    const afterOriginals = (await settledExecutions(q.main, workflowId)).length;
    for (const d of seenOnce) await deliver(subscriptionUrl, secret(), d.event, d.deliveryId);
    for (const d of seenOnce) await deliver(subscriptionUrl, secret(), d.event, d.deliveryId); // and once more
    const after = (await settledExecutions(q.main, workflowId)).length;
    record('afterWebhookRestart', {
      duplicatedDeliveriesResent: originals.length,
      newExecutionsFromDuplicated: afterOriginals - before,
      seenOnceResentTwice: seenOnce.length,
      newExecutionsFromSeenOnce: after - afterOriginals,
    });
    expect(afterOriginals - before).toBe(0);
    // Where the guarantee stops: the first copy after the restart runs again, the next is caught.
    expect(after - afterOriginals).toBe(seenOnce.length);
  });

  // ---- subscription lifecycle (checkExists / create / delete run in main) -----------------

  const subscriptionRoutes = () => {
    const byRoute = sb.controls.counters().requests.byRoute;
    return Object.fromEntries(Object.entries(byRoute).filter(([route]) => route.includes('/webhooks/subscriptions')));
  };

  it('20 publish/unpublish cycles leave 0 subscriptions and never 2 at once', async () => {
    await q.main.unpublish(workflowId);
    expect(sb.controls.subscriptions(workspaceId)).toHaveLength(0);
    sb.controls.resetCounters();
    let most = 0;
    for (let i = 0; i < 20; i++) {
      await q.main.publish(workflowId);
      most = Math.max(most, sb.controls.subscriptions(workspaceId).length);
      await q.main.unpublish(workflowId);
    }
    const left = sb.controls.subscriptions(workspaceId).length;
    record('publishUnpublishCycles', { cycles: 20, mostAtOnce: most, left, calls: subscriptionRoutes(), rateLimited: sb.controls.counters().rateLimited });
    expect(most).toBe(1);
    expect(left).toBe(0);
  });

  it('3 main restarts: no second subscription; what main calls at start-up; deliveries still run once', async () => {
    await q.main.publish(workflowId);
    const [sub] = sb.controls.subscriptions(workspaceId);
    const perRestart: Array<Record<string, number>> = [];
    for (let i = 0; i < 3; i++) {
      sb.controls.resetCounters();
      await q.main.restart();
      await sleep(3_000); // let start-up activation finish
      perRestart.push(subscriptionRoutes());
      expect(sb.controls.subscriptions(workspaceId).map((s) => s.id)).toEqual([sub.id]);
    }
    record('mainRestarts', { restarts: 3, subscriptionCallsPerRestart: perRestart, subscriptions: sb.controls.subscriptions(workspaceId).length });
    await expectOneIssueRunsOnce('after-main-restart');
  });

  it('checkExists adopts the service\'s subscription for its URL when the stored id is gone (no orphan, deliveries verify)', async () => {
    const [sub] = sb.controls.subscriptions(workspaceId);
    // The stored id is gone: static data wiped in the database (a restore, an import).
    sql(q.postgres.port, `update workflow_entity set "staticData" = null where id = '${workflowId}'`);
    await q.main.unpublish(workflowId); // delete() has no id: the subscription stays
    expect(sb.controls.subscriptions(workspaceId).map((s) => s.id)).toEqual([sub.id]);
    sb.controls.resetCounters();
    await q.main.publish(workflowId);
    const subs = sb.controls.subscriptions(workspaceId);
    record('adoption', { subscriptionsAfterRepublish: subs.length, sameId: subs[0]?.id === sub.id, calls: subscriptionRoutes() });
    expect(subs.map((s) => s.id)).toEqual([sub.id]);
    // The rotated secret is the one n8n stored: a real delivery is accepted and runs once.
    await expectOneIssueRunsOnce('adopted');
  });

  it('delete treats 404 as done: unpublishing after the subscription vanished succeeds and leaves 0', async () => {
    const [sub] = sb.controls.subscriptions(workspaceId);
    await core.deleteSubscription(sub.id);
    await q.main.unpublish(workflowId);
    expect(sb.controls.subscriptions(workspaceId)).toHaveLength(0);
    expect(savedStaticData(q.postgres.port, workflowId)['node:Certificate Service Trigger']?.subscriptionId).toBeUndefined();
    record('orphansAtEnd', sb.controls.subscriptions(workspaceId).length);
  });

  it('start-up on n8n\'s legacy activation path (N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false): checkExists runs, finds the subscription, creates none', async () => {
    await q.main.publish(workflowId);
    const [sub] = sb.controls.subscriptions(workspaceId);
    sb.controls.resetCounters();
    await q.main.restart({ N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false' });
    await sleep(3_000);
    const calls = subscriptionRoutes();
    record('mainRestartLegacyActivation', { calls, subscriptions: sb.controls.subscriptions(workspaceId).length });
    expect(calls).toEqual({ 'GET /webhooks/subscriptions/:id': 1 });
    expect(sb.controls.subscriptions(workspaceId).map((s) => s.id)).toEqual([sub.id]);
  });

  it('start-up storm on the legacy path: with the workspace full (20 published triggers), a restart checks each once; with all 20 gone, it re-creates each once (3 calls each); 0 answered 429', async () => {
    // Publishing goes through the publication service (the default), so turn it back on first.
    await q.main.restart({ N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true' });
    // 19 more published trigger workflows: with the one above, the workspace's limit of 20.
    const storm: string[] = [];
    for (let i = 0; i < 19; i++) {
      const wf = await q.main.createWorkflow(triggerWorkflow(`Storm ${i}`, `queue-storm-${i}`, credential));
      await q.main.publish(wf.id);
      storm.push(wf.id);
    }
    expect(sb.controls.subscriptions(workspaceId)).toHaveLength(20);

    sb.controls.resetCounters();
    await q.main.restart({ N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false' });
    await quiet(); // n8n activates the workflows one after another, past its readiness
    const allThere = { calls: subscriptionRoutes(), rateLimited: sb.controls.counters().rateLimited };
    expect(allThere.calls).toEqual({ 'GET /webhooks/subscriptions/:id': 20 });
    expect(allThere.rateLimited).toBe(0);

    // Every subscription deleted behind n8n's back: each trigger finds its own gone and subscribes again.
    for (const sub of sb.controls.subscriptions(workspaceId)) await core.deleteSubscription(sub.id);
    sb.controls.resetCounters();
    await q.main.restart({ N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false' });
    await quiet();
    const allGone = { calls: subscriptionRoutes(), rateLimited: sb.controls.counters().rateLimited, subscriptions: sb.controls.subscriptions(workspaceId).length };
    record('startupStormLegacyActivation', { triggers: 20, allThere, allGone });
    // each: its stored id 404s, a list looks for one to adopt (none), then it subscribes
    expect(allGone.calls).toEqual({ 'GET /webhooks/subscriptions/:id': 20, 'GET /webhooks/subscriptions': 20, 'POST /webhooks/subscriptions': 20 });
    expect(allGone.rateLimited).toBe(0);
    expect(new Set(sb.controls.subscriptions(workspaceId).map((s) => s.url)).size).toBe(20);

    await q.main.restart({ N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true' });
    for (const id of storm) await q.main.unpublish(id);
    expect(sb.controls.subscriptions(workspaceId)).toHaveLength(1);
  });

  // ---- Webhook → Delivery: Verify: Verify runs inside executions, on whichever worker Bull hands each copy ----

  it('Webhook → Verify with default options: copies of one occurrence on different workers (both orders), the same delivery twice, a worker restart between copies → each occurrence output once', async () => {
    // Occurrences of a workspace of their own, each delivered once to a receiver that keeps them.
    const capture = await captureReceiver();
    const copiesWs = sb.controls.createWorkspace({ quota: 1_000 });
    const copiesCore = createClient({ baseUrl: sb.baseUrl, apiKey: copiesWs.apiKey });
    await copiesCore.createSubscription({ url: capture.url, events: ['certificate.issued', 'certificate.failed'] });
    const copiesBatch = await copiesCore.createBatch({ title: 'Verify copies', designId: 'design_classic' });
    const since = Date.now() - 1_000;
    // Up to 3 groups of 4 occurrences (2 issued, 2 failed) per order, and 1 for the restart.
    const people = Array.from({ length: 25 }, (_, i) => ({ name: `Copy ${i}`, email: i % 2 ? `copy${i}@bounce.test` : `copy${i}@example.com` }));
    await copiesCore.issueBulk(copiesBatch.id, people, { send: true });
    await until('every issued and failed delivery kept', () => capture.copies.size >= 25 + 12, 60_000, 100);
    await capture.close();
    const found = await occurrencesOf(copiesCore, copiesBatch.id, since, capture.copies);
    const issued = found.filter((o) => o.type === 'certificate.issued' && !o.service.event.data.email.endsWith('@bounce.test'));
    const failed = found.filter((o) => o.type === 'certificate.failed');
    expect([issued.length, failed.length]).toEqual([13, 12]);

    // The workflow: Webhook (Raw Body) → Verify with no option added, subscribed from a workspace of its own (for the duplicates).
    const dupWs = sb.controls.createWorkspace({ quota: 1_000 });
    const dupCore = createClient({ baseUrl: sb.baseUrl, apiKey: dupWs.apiKey });
    const url = `${q.url}/webhook/queue-verify`;
    const { secret: signingSecret } = await dupCore.createSubscription({ url, events: ['certificate.issued'] });
    const wf = await q.main.createWorkflow(verifyWorkflow('Queue verify', 'queue-verify', signingSecret, credential));
    await q.main.publish(wf.id);
    const runs = async () => {
      await settledOf(() => executionPages(q.main, wf.id), 3_000, 120_000, true);
      return verifyRuns(q.main, wf.id, q.workers);
    };
    type Group = { key: string; deliveryIds: string[] };
    const pair = (o: Occurrence): Group => ({ key: o.key, deliveryIds: [o.service.deliveryId, o.recovered.deliveryId] });
    /**
     * Sends groups of 4 occurrences until the copies of one of them ran on two workers (Bull chooses;
     * 3 groups at most): what became of all of them.
     */
    const untilOnTwoWorkers = async (sendGroup: () => Promise<Group[]>) => {
      const groups: Group[] = [];
      for (let round = 0; round < 3; round++) {
        groups.push(...(await sendGroup()));
        if (outcomes(groups, await runs()).some((o) => o.workers.length >= 2)) break;
      }
      return summarize(outcomes(groups, await runs()));
    };
    // Both copies of an occurrence together (5 ms apart), one occurrence at a time.
    const together = (firstCopy: 'recovered' | 'service') => async () => {
      const group = [issued.shift()!, failed.shift()!, issued.shift()!, failed.shift()!];
      for (const o of group) {
        await sendTogether(url, signingSecret, o[firstCopy], firstCopy === 'recovered' ? o.service : o.recovered, 5);
        await sleep(300);
      }
      return group.map(pair);
    };
    // The service's own duplicates: each delivery sent twice at once, one delivery id.
    const duplicates = async () => {
      sb.controls.setDuplicateDeliveries(2);
      const batch = await dupCore.createBatch({ title: 'Verify duplicates', designId: 'design_classic' });
      await dupCore.issueBulk(batch.id, Array.from({ length: 4 }, (_, i) => ({ name: `Dup ${i}`, email: `dup${i}@example.com` })));
      const ids = new Set(sb.controls.certificates(batch.id).map((r) => r.id));
      const events = () => sb.controls.events().filter((e) => ids.has(e.recipientId));
      await sb.controls.waitForDeliveries((l) => l.filter((d) => d.outcome === 'succeeded' && events().some((e) => e.id === d.eventId)).length >= 8, 60_000);
      sb.controls.setDuplicateDeliveries(1);
      return events().map((e) => ({ key: e.recipientId, deliveryIds: e.deliveryIds }));
    };
    const byCase = {
      recoveredFirst: await untilOnTwoWorkers(together('recovered')),
      serviceFirst: await untilOnTwoWorkers(together('service')),
      serviceDuplicates: await untilOnTwoWorkers(duplicates),
    };

    // A restart between two copies: the recovered copy runs, the worker that ran it restarts, then the service's copy comes.
    const last = issued.shift()!;
    await send(url, signingSecret, last.recovered);
    const ranOn = (await runs()).find((r) => r.deliveryId === last.recovered.deliveryId)!.worker;
    expect(ranOn).toBeGreaterThanOrEqual(0);
    await q.workers[ranOn].restart();
    await send(url, signingSecret, last.service);
    const restart = outcomes([pair(last)], await runs())[0];
    record('verifyDefaultOptions', { ...byCase, workerRestart: { restarted: ranOn, ran: restart.ran, workers: restart.workers } });

    for (const c of Object.values(byCase)) {
      expect(c).toMatchObject({ ranOnce: c.occurrences, ranTwice: 0, ranNever: 0 });
      // The point of the test: copies of an occurrence did run on two workers (each worker's memory alone would run both).
      expect(c.copiesOnTwoWorkers).toBeGreaterThan(0);
    }
    expect(restart.ran).toBe(1);
    await q.main.unpublish(wf.id);
  });

  /** Waits until no subscription call has come for 5 s (at most 90 s). */
  async function quiet(): Promise<void> {
    const total = () => Object.values(subscriptionRoutes()).reduce((n, c) => n + c, 0);
    let last = -1;
    await until('no subscription call for 5 s', () => {
      const [before, now] = [last, total()];
      last = now;
      return now === before;
    }, 90_000, 5_000).catch(() => undefined); // at 90 s, go on as the suite always has
  }

  /** Issues one certificate: its delivery runs exactly one execution. */
  async function expectOneIssueRunsOnce(tag: string): Promise<void> {
    const [recipient] = await issue(1, tag);
    const event = await waitForEvent(recipient.id);
    const counts = countByEvent(await settledExecutions(q.main, workflowId));
    expect(counts.get(event)).toBe(1);
  }

  /** Waits until the sandbox delivered the event of `recipientId` successfully; returns the event id. */
  async function waitForEvent(recipientId: string): Promise<string> {
    return await until(`a successful delivery for ${recipientId}`, () => {
      const event = sb.controls.events().find((e) => e.recipientId === recipientId && e.type === 'certificate.issued');
      return event && sb.controls.deliveries().some((d) => d.eventId === event.id && d.outcome === 'succeeded') && event.id;
    }, 30_000, 200);
  }
});
