/**
 * End-to-end test of n8n-nodes-certificate-service in a REAL n8n 2.41.1 against the local
 * sandbox: the built package is loaded through N8N_CUSTOM_EXTENSIONS, workflows are created
 * and run over n8n's APIs, and the trigger is published and fed signed deliveries.
 *
 * One sandbox and one n8n for the whole file; the steps share state and run in order.
 * Timings are printed at the end and written to test/e2e/n8n/last-run.json.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { signPayload, type CertificateServiceClient } from '@certificate-service/sdk';
import { deliveryHeaders, hasEnded } from '../../support/deliver';
import type { Sandbox } from '@certificate-service/sandbox';
import { until } from '../../support/until';
import { startPackageStack, type N8nInstance, type PackageStack, type RunResult, type WorkflowJson } from './harness';
import { alive, processesWithEnv, withDescendants } from './package-setup';
import { ACTION, actionNode, chain, manualTrigger, manualWorkflow, TRIGGER, verifiedItems, verifyWorkflow } from './workflows';

const BULK_ROUTE = 'POST /batches/:id/recipients/bulk';
const SINGLE_ISSUE_ROUTE = 'POST /batches/:id/recipients';
const LIST_RECIPIENTS_ROUTE = 'GET /batches/:id/recipients';
const ISSUE_COUNT = 250;

jest.setTimeout(120_000);

// ---- timings ---------------------------------------------------------------------------

const timings: Record<string, number> = {};
const results: Record<string, 'passed' | 'failed'> = {};

async function timed<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const start = performance.now();
  try {
    const value = await fn();
    results[name] = 'passed';
    return value;
  } catch (error) {
    results[name] = 'failed';
    throw error;
  } finally {
    timings[name] = Math.round(performance.now() - start);
  }
}

// ---- workflow building -----------------------------------------------------------------

type Node = Record<string, unknown> & { name: string };

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** A Code node (after the Manual Trigger) that outputs the items `jsCode` returns. */
function codeNode(name: string, jsCode: string): Node {
  return { id: randomUUID(), name, type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode } };
}

describe('n8n-nodes-certificate-service in a real n8n 2.41.1', () => {
  let stack: PackageStack | undefined;
  let sb: Sandbox | undefined;
  let n8n: N8nInstance | undefined;
  let credential: { id: string; name: string };
  let core: CertificateServiceClient;

  // Shared between the steps.
  let batchId = '';
  let otherBatchId = '';
  let issued: Record<string, any>[] = [];
  let triggerWorkflowId = '';
  let webhookId = '';
  let productionUrl = '';
  const triggerExecutionsSeen = new Set<string>();

  const serviceNode = (name: string, parameters: Record<string, unknown>, x: number): Node => actionNode(name, parameters, credential, x);

  /** Creates a Manual Trigger → ...nodes workflow and runs it like the editor does. */
  async function runChain(name: string, ...nodes: Node[]): Promise<RunResult> {
    return await runWorkflow(manualWorkflow(name, ...nodes));
  }

  async function runWorkflow(workflow: WorkflowJson): Promise<RunResult> {
    const { name } = workflow;
    const wf = await n8n!.createWorkflow(workflow);
    const run = await n8n!.runWorkflow(wf.id);
    if (run.status !== 'success') {
      throw new Error(`workflow "${name}" ended ${run.status}: ${run.error}\n${JSON.stringify(run.execution?.data?.resultData?.error ?? {}, null, 2).slice(0, 2000)}`);
    }
    return run;
  }

  const routeCount = (route: string) => sb!.controls.counters().requests.byRoute[route] ?? 0;

  /** Executions (in any state) of the trigger workflow that this test has not looked at yet. */
  async function newTriggerExecutions(): Promise<any[]> {
    const all = await n8n!.executions(triggerWorkflowId);
    return all.filter((e) => !triggerExecutionsSeen.has(String(e.id)));
  }

  /** Waits until `count` new executions exist and have finished; marks them as seen. */
  async function waitForNewTriggerExecutions(count: number, timeoutMs = 15_000): Promise<any[]> {
    const fresh = await until(`${count} new ended trigger execution(s)`, async () => {
      const all = await newTriggerExecutions();
      return all.length >= count && all.every(hasEnded) && all;
    }, timeoutMs, 100);
    for (const e of fresh) triggerExecutionsSeen.add(String(e.id));
    return fresh;
  }

  /**
   * Asserts that no new execution of the trigger workflow shows up within `ms`. (n8n creates
   * the execution before it answers an accepted delivery, so a short wait is enough.)
   */
  async function expectNoNewTriggerExecution(ms = 1_000): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    expect(await newTriggerExecutions()).toEqual([]);
  }

  /** POSTs an event to the production webhook URL as the service would, signed with `secret`. */
  async function deliver(event: { id: string; type: string; createdAt: string; data: unknown }, deliveryId: string, secret: string) {
    const body = JSON.stringify(event);
    return await fetch(productionUrl, { method: 'POST', headers: deliveryHeaders(event.type, deliveryId, secret, body), body });
  }

  const realSecret = () => sb!.controls.subscriptions()[0].secret;

  const triggerItem = (execution: any) =>
    execution.data.resultData.runData['Certificate Service Trigger'][0].data.main[0].map((i: any) => i.json);

  beforeAll(async () => {
    stack = await startPackageStack({ rateLimit: false, timeScale: 0.001, mailDelayMs: 5 }, timed);
    ({ sb, n8n, core } = stack);
  }, 15 * 60_000);

  afterAll(async () => {
    try {
      await stack?.stop();
    } finally {
      const report = { n8nVersion: '2.41.1', at: new Date().toISOString(), timingsMs: timings, results };
      console.log(`n8n e2e timings (ms):\n${Object.entries(timings).map(([k, v]) => `  ${k.padEnd(44)} ${v}`).join('\n')}`);
      try {
        fs.writeFileSync(path.join(__dirname, 'last-run.json'), `${JSON.stringify(report, null, 2)}\n`);
      } catch {
        // a read-only checkout must not fail the run
      }
    }
  }, 60_000);

  it('loads both nodes and the credential from the custom extensions folder', async () => {
    await timed('node types loaded', async () => {
      expect(n8n!.logs()).not.toMatch(/Failed to load package|Error loading node|Unrecognized node type/);
      // What the editor asks for when it opens a workflow with these nodes.
      const described: Array<{ displayName: string; credentials?: Array<{ name: string }>; webhooks?: unknown[] } | null> =
        await n8n!.rest('POST', '/node-types', { nodeInfos: [{ name: ACTION, version: 1 }, { name: TRIGGER, version: 1 }] });
      expect(described.map((d) => d?.displayName)).toEqual(['Certificate Service', 'Certificate Service Trigger']);
      expect(described[0]!.credentials).toEqual([expect.objectContaining({ name: 'certificateServiceApi' })]);
      expect(described[1]!.webhooks).toHaveLength(1);
      // The type lists the editor loads at start-up (behind the session cookie).
      const typeList = async (file: string) => {
        const res = await fetch(`${n8n!.baseUrl}/types/${file}`, { headers: { cookie: n8n!.sessionCookie() } });
        expect(res.status).toBe(200);
        return ((await res.json()) as Array<{ name: string }>).map((t) => t.name);
      };
      expect(await typeList('nodes.json')).toEqual(expect.arrayContaining([ACTION, TRIGGER]));
      expect(await typeList('credentials.json')).toContain('certificateServiceApi');
    });
  });

  it('creates the credential with a bare origin as base URL, and n8n\'s credential test passes', async () => {
    await timed('credential: create + test', async () => {
      const data = { apiKey: sb!.apiKey, baseUrl: `${sb!.url}/` }; // no /api/v1, trailing slash
      const created = await n8n!.createCredential('certificateServiceApi', 'Certificate Service (sandbox)', data);
      credential = { id: created.id, name: 'Certificate Service (sandbox)' };
      const before = routeCount('POST /auth');
      const test = await n8n!.rest('POST', '/credentials/test', {
        credentials: { id: created.id, name: credential.name, type: 'certificateServiceApi', data },
      });
      expect(test).toEqual(expect.objectContaining({ status: 'OK' }));
      expect(routeCount('POST /auth')).toBe(before + 1);
    });
  });

  it('creates a batch', async () => {
    await timed('action: create batch', async () => {
      const run = await runChain(
        'e2e: create batch',
        serviceNode('Create Batch', { resource: 'batch', operation: 'create', title: 'E2E batch', design: byId('design_classic') }, 200),
      );
      expect(run.items).toHaveLength(1);
      expect(run.items[0]).toEqual(expect.objectContaining({ title: 'E2E batch', designId: 'design_classic', status: 'active' }));
      batchId = String(run.items[0].id);
      expect(batchId).toMatch(/^batch_/);
    });
  });

  it(`issues ${ISSUE_COUNT} certificates with exactly 3 bulk calls, output in input order`, async () => {
    await timed(`action: issue ${ISSUE_COUNT} (bulk)`, async () => {
      sb!.controls.resetCounters();
      const code = codeNode(
        'Recipients',
        `return Array.from({ length: ${ISSUE_COUNT} }, (_, i) => ({ json: { n: i, name: 'Recipient ' + i, email: 'r' + i + '@example.com', course: 'Course ' + (i % 7) } }));`,
      );
      const issue = serviceNode(
        'Issue',
        {
          resource: 'certificate',
          operation: 'issue',
          batch: byId(batchId),
          name: '={{ $json.name }}',
          email: '={{ $json.email }}',
          specifyData: 'fields',
          // design_classic lists course and score: a name it does not list would fail the item.
          dataFields: { field: [{ name: 'course', value: '={{ $json.course }}' }, { name: 'score', value: '={{ $json.n }}' }] },
          send: false,
          options: {},
        },
        400,
      );
      const run = await runChain('e2e: issue many', code, issue);
      expect(routeCount(BULK_ROUTE)).toBe(3);
      expect(routeCount(SINGLE_ISSUE_ROUTE)).toBe(0);
      expect(sb!.controls.counters().certificatesIssued).toBe(ISSUE_COUNT);

      issued = run.outputOf('Issue');
      expect(issued).toHaveLength(ISSUE_COUNT);
      issued.forEach((r, i) => {
        expect(r).toEqual(
          expect.objectContaining({
            batchId,
            name: `Recipient ${i}`,
            email: `r${i}@example.com`,
            data: { course: `Course ${i % 7}`, score: String(i) },
            emailStatus: 'not_sent',
          }),
        );
        expect(r.certificateId).toMatch(/^CERT-\d{4}-\d{6}-\d{4}$/);
        expect(r.id).toMatch(/^rec_/);
      });
      expect(new Set(issued.map((r) => r.certificateId)).size).toBe(ISSUE_COUNT);
      // Every output item is paired with its input item.
      const paired = run.execution.data.resultData.runData.Issue[0].data.main[0].map((i: any) => i.pairedItem?.item);
      expect(paired).toEqual(issued.map((_, i) => i));
    });
  });

  it('with the batch list in a shape no code knows, Issue (skip on) issues nothing; each item ends with UNEXPECTED_RESPONSE', async () => {
    await timed('action: issue against an unreadable list', async () => {
      for (const shape of ['entries', 'html_page'] as const) {
        sb!.controls.resetCounters();
        sb!.controls.setListShape(shape);
        try {
          const code = codeNode('Recipients', `return [0, 1, ${ISSUE_COUNT + 7}].map((i) => ({ json: { name: 'Recipient ' + i, email: 'r' + i + '@example.com' } }));`);
          const issue = {
            ...serviceNode('Issue', { resource: 'certificate', operation: 'issue', batch: byId(batchId), name: '={{ $json.name }}', email: '={{ $json.email }}', specifyData: 'fields', options: {} }, 400),
            onError: 'continueRegularOutput',
          };
          const run = await runChain(`e2e: issue, list shape ${shape}`, code, issue);
          expect(routeCount(BULK_ROUTE) + routeCount(SINGLE_ISSUE_ROUTE)).toBe(0);
          expect(sb!.controls.counters().certificatesIssued).toBe(0);
          const out = run.outputOf('Issue');
          expect(out).toHaveLength(3);
          for (const item of out) {
            expect(item).toMatchObject({ code: 'UNEXPECTED_RESPONSE', phase: 'response' });
            // The design check reads first (the designs list, in the same unknown shape), before skip-existing's read of the batch.
            expect(item.error).toMatch(/not issued, because batch \S+ could not be read to check its design's variables \(GET \/designs answered 200/);
          }
        } finally {
          sb!.controls.setListShape('default');
        }
      }
    });
  });

  it('sends one certificate, then finds it by certificate ID and by share token', async () => {
    await timed('action: send + lookups', async () => {
      const target = issued[7];
      const run = await runChain(
        'e2e: send and look up',
        serviceNode('Send', { resource: 'certificate', operation: 'send', batch: byId(batchId), recipientId: byId(target.id) }, 200),
        serviceNode('By Certificate ID', { resource: 'certificate', operation: 'getByCertificateId', certificateId: target.certificateId }, 400),
        serviceNode('By Share Token', { resource: 'certificate', operation: 'getByShareToken', certificateLink: target.shareToken }, 600),
      );
      const [sent] = run.outputOf('Send');
      expect(sent).toEqual(expect.objectContaining({ id: target.id, emailStatus: 'queued' }));
      const [byCert] = run.outputOf('By Certificate ID');
      const [byToken] = run.outputOf('By Share Token');
      expect(byCert).toEqual(expect.objectContaining({ id: target.id, certificateId: target.certificateId, shareToken: target.shareToken }));
      expect({ name: byToken.name, email: byToken.email, id: byToken.id }).toEqual({ name: byCert.name, email: byCert.email, id: byCert.id });
      expect(byToken.name).toBe('Recipient 7');
      expect(routeCount('POST /batches/:id/recipients/:rid/send')).toBe(1);
    });
  });

  it('gets many certificates with Return All (3 pages) and all designs', async () => {
    await timed('action: get many (return all)', async () => {
      sb!.controls.resetCounters();
      const certificates = serviceNode('All Certificates', { resource: 'certificate', operation: 'getMany', batch: byId(batchId), returnAll: true, filters: {} }, 200);
      const designs = serviceNode('All Designs', { resource: 'design', operation: 'getMany', returnAll: true }, 400);
      // Both straight after the Manual Trigger, so each runs for its one (empty) input item.
      const manual = manualTrigger();
      const run = await runWorkflow({
        name: 'e2e: get many',
        nodes: [manual, certificates, designs],
        connections: { [manual.name]: { main: [[{ node: certificates.name, type: 'main', index: 0 }, { node: designs.name, type: 'main', index: 0 }]] } },
      });
      const all = run.outputOf('All Certificates');
      expect(all).toHaveLength(ISSUE_COUNT);
      expect(new Set(all.map((r) => r.id))).toEqual(new Set(issued.map((r) => r.id)));
      expect(routeCount(LIST_RECIPIENTS_ROUTE)).toBe(3); // 100 + 100 + 50
      const designItems = run.outputOf('All Designs');
      expect(designItems).toHaveLength(3);
      expect(new Set(designItems.map((d) => d.id))).toEqual(new Set(['design_classic', 'design_modern', 'design_minimal']));
    });
  });

  it('Map Design Variables (the default of Issue\'s Data): n8n loads the batch\'s design variables as columns, and issued certificates carry them', async () => {
    await timed('action: issue with mapped design variables', async () => {
      const minimal = await core.createBatch({ title: 'E2E variables', designId: 'design_minimal' });
      // What the editor asks when the batch is picked: the resource mapper's columns.
      const columns = await n8n!.rest('POST', '/dynamic-node-parameters/resource-mapper-fields', {
        path: 'parameters.variables',
        methodName: 'getVariableColumns',
        nodeTypeAndVersion: { name: ACTION, version: 1 },
        currentNodeParameters: { resource: 'certificate', operation: 'issue', batch: byId(minimal.id), specifyData: 'mapVariables' },
        credentials: { certificateServiceApi: credential },
      });
      expect(columns.fields.map((f: { id: string; required: boolean }) => [f.id, f.required])).toEqual([
        ['course', true],
        ['completedOn', false],
      ]);
      // Two items: one fills the required column, one leaves it empty (Continue On Fail on).
      const input = codeNode('Learners', "return [{ json: { email: 'v1@example.com', course: 'Welding', completedOn: '2026-11-25' } }, { json: { email: 'v2@example.com', course: '' } }];");
      const issue: Node = {
        ...serviceNode('Issue With Variables', {
          resource: 'certificate',
          operation: 'issue',
          batch: byId(minimal.id),
          name: '={{ $json.email }}',
          email: '={{ $json.email }}',
          // specifyData is left out: its default is Map Design Variables.
          variables: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: columns.fields, attemptToConvertTypes: false, convertFieldsToString: true },
          skipExisting: false,
        }, 400),
        onError: 'continueRegularOutput',
      };
      sb!.controls.resetCounters();
      const run = await runChain('e2e: issue with design variables', input, issue);
      const out = run.outputOf('Issue With Variables');
      expect(out[0]).toMatchObject({ email: 'v1@example.com', data: { course: 'Welding', completedOn: '2026-11-25' } });
      expect(out[1]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'data.course' });
      expect(sb!.controls.certificates(minimal.id).map((c) => [c.email, c.data])).toEqual([['v1@example.com', { course: 'Welding', completedOn: '2026-11-25' }]]);
      expect(routeCount(SINGLE_ISSUE_ROUTE)).toBe(1); // nothing sent for the item without its course
    });
  });

  it('publishing the trigger workflow subscribes n8n\'s production URL', async () => {
    await timed('trigger: publish', async () => {
      // A second batch, for the batch filter.
      otherBatchId = (await core.createBatch({ title: 'E2E other batch', designId: 'design_modern' })).id;
      webhookId = randomUUID();
      const trigger: Node = {
        id: randomUUID(),
        name: 'Certificate Service Trigger',
        type: TRIGGER,
        typeVersion: 2, // the example workflows (test/e2e/n8n/examples.e2e.test.ts) still run version 1
        position: [0, 0],
        webhookId,
        parameters: { events: ['certificate.issued', 'certificate.sent'], batch: byId(batchId) },
        credentials: { certificateServiceApi: credential },
      };
      const noop: Node = { id: randomUUID(), name: 'Done', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [200, 0], parameters: {} };
      const wf = await n8n!.createWorkflow({ name: 'e2e: trigger', nodes: [trigger, noop], connections: chain(trigger, noop) });
      triggerWorkflowId = wf.id;
      expect(sb!.controls.subscriptions()).toHaveLength(0);

      await n8n!.publish(wf.id);
      productionUrl = `${n8n!.baseUrl}/webhook/${webhookId}/webhook`;
      const subs = sb!.controls.subscriptions();
      expect(subs).toHaveLength(1);
      expect(subs[0].url).toBe(productionUrl);
      expect([...subs[0].events].sort()).toEqual(['certificate.issued', 'certificate.sent']);
    });
  });

  it('a signed delivery starts one execution with the flat event item', async () => {
    await timed('trigger: delivery -> execution', async () => {
      const recipient = await core.issueCertificate(batchId, { name: 'Trigger Person', email: 'trigger@example.com', data: { course: 'E2E' } });
      await sb!.controls.waitForDeliveries(
        (log) => log.some((a) => a.type === 'certificate.issued' && a.outcome === 'succeeded'),
        10_000,
      );
      const fresh = await waitForNewTriggerExecutions(1);
      expect(fresh).toHaveLength(1);
      const [execution] = fresh;
      expect(execution.mode).toBe('webhook');
      expect(execution.status).toBe('success');
      const items = triggerItem(execution);
      expect(items).toHaveLength(1);
      expect(items[0]).toEqual(
        expect.objectContaining({
          type: 'certificate.issued',
          recipientId: recipient.id,
          recipientCreatedAt: recipient.createdAt,
          batchId,
          certificateId: recipient.certificateId,
          shareToken: recipient.shareToken,
          name: 'Trigger Person',
          email: 'trigger@example.com',
          data: { course: 'E2E' },
        }),
      );
      expect(items[0].id).toMatch(/^whe_/);
    });
  });

  it('certificate.sent (the other selected event) starts an execution too', async () => {
    await timed('trigger: certificate.sent -> execution', async () => {
      const target = issued[8];
      await core.sendCertificate(batchId, target.id);
      const fresh = await waitForNewTriggerExecutions(1);
      expect(fresh).toHaveLength(1);
      const [execution] = fresh;
      expect(execution.status).toBe('success');
      expect(triggerItem(execution)).toEqual([
        expect.objectContaining({ type: 'certificate.sent', recipientId: target.id, certificateId: target.certificateId, emailStatus: 'sent' }),
      ]);
    });
  });

  it('events of another batch and unselected event types are answered 200 and start nothing', async () => {
    await timed('trigger: filters', async () => {
      const before = sb!.controls.deliveries().length;
      await core.issueCertificate(otherBatchId, { name: 'Other Batch', email: 'other@example.com' });
      const log = await sb!.controls.waitForDeliveries((l) => l.length > before, 10_000);
      expect(log.slice(before).map((a) => [a.type, a.status])).toEqual([['certificate.issued', 200]]);
      await expectNoNewTriggerExecution();

      // certificate.viewed is not selected (the service would not even send it): a correctly
      // signed one is acknowledged but ignored.
      const viewed = { ...issued[9], viewer: { viewedAt: new Date().toISOString(), userAgent: 'e2e', referer: null, ip: '127.0.0.1' } };
      const res = await deliver({ id: 'whe_e2e_viewed', type: 'certificate.viewed', createdAt: new Date().toISOString(), data: viewed }, 'whd_e2e_viewed', realSecret());
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(expect.objectContaining({ ignored: 'event certificate.viewed is not selected' }));
      await expectNoNewTriggerExecution();
    });
  });

  it('a duplicated delivery (same X-Service-Delivery) starts only one execution', async () => {
    await timed('trigger: duplicate deliveries', async () => {
      sb!.controls.setDuplicateDeliveries(2);
      try {
        const before = sb!.controls.deliveries().length;
        const recipient = await core.issueCertificate(batchId, { name: 'Twice Delivered', email: 'twice@example.com' });
        const log = await sb!.controls.waitForDeliveries(
          (l) => l.slice(before).filter((a) => a.outcome === 'succeeded').length >= 2,
          10_000,
        );
        // Both copies end delivered (200). A copy that found the other still pending (n8n had not
        // answered it yet) was answered 503 DELIVERY_PENDING first, and its retry was the duplicate.
        const attempts = log.slice(before);
        const ended = attempts.filter((a) => a.outcome !== 'retrying');
        expect(ended).toHaveLength(2);
        expect(new Set(attempts.map((a) => a.deliveryId)).size).toBe(1);
        expect(ended.map((a) => a.status)).toEqual([200, 200]);
        expect(attempts.filter((a) => a.outcome === 'retrying').every((a) => a.status === 503 && a.answer?.includes('DELIVERY_PENDING'))).toBe(true);

        // Both copies were answered before this point, and n8n creates an execution before it
        // answers, so a second execution would already be listed here.
        const fresh = await waitForNewTriggerExecutions(1);
        expect(fresh).toHaveLength(1);
        expect(triggerItem(fresh[0])[0]).toEqual(expect.objectContaining({ recipientId: recipient.id, type: 'certificate.issued' }));
        await expectNoNewTriggerExecution();
      } finally {
        sb!.controls.setDuplicateDeliveries(1);
      }
    });
  });

  it('a replay of an accepted delivery with a fresh valid signature is answered 200 and starts nothing', async () => {
    await timed('trigger: replayed delivery', async () => {
      // The first accepted delivery (the "Trigger Person" one), rebuilt as the sandbox sent it.
      const first = sb!.controls.deliveries().find((a) => a.type === 'certificate.issued' && a.outcome === 'succeeded')!;
      const event = sb!.controls.events().find((e) => e.id === first.eventId)!;
      const recipient = await core.getRecipient(batchId, event.recipientId);
      const res = await deliver({ id: event.id, type: event.type, createdAt: event.createdAt, data: recipient }, first.deliveryId, realSecret());
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(expect.objectContaining({ duplicate: true }));
      await expectNoNewTriggerExecution();
    });
  });

  it('a forged delivery (bad signature) is answered 401 and starts nothing', async () => {
    await timed('trigger: forged delivery', async () => {
      const event = { id: 'whe_forged', type: 'certificate.issued', createdAt: new Date().toISOString(), data: issued[0] };
      const res = await deliver(event, 'whd_forged_0001', 'wh_sec_not_the_real_secret');
      expect(res.status).toBe(401);
      // A correct signature that is too old (outside the 300 s window): 401.
      const body = JSON.stringify(event);
      const stale = await fetch(productionUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-delivery': 'whd_forged_0002', ...signPayload(realSecret(), body, Math.floor(Date.now() / 1000) - 3600) },
        body,
      });
      expect(stale.status).toBe(401);
      // No signature header at all: also 401.
      const unsigned = await fetch(productionUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(unsigned.status).toBe(401);
      await expectNoNewTriggerExecution();
    });
  });

  it('unpublishing removes the subscription', async () => {
    await timed('trigger: unpublish', async () => {
      await n8n!.unpublish(triggerWorkflowId);
      expect(sb!.controls.subscriptions()).toHaveLength(0);
      const gone = await fetch(productionUrl, { method: 'POST', body: '{}' });
      expect(gone.status).toBe(404);
    });
  });

  it('the high-volume path: Webhook (Raw Body) → Delivery: Verify outputs each delivery once and drops a forged one', async () => {
    await timed('verify delivery: webhook path', async () => {
      const path = randomUUID();
      const url = `${n8n!.baseUrl}/webhook/${path}`;
      // As the README says: subscribe the Webhook node's production URL, keep the secret (shown once).
      const subscription = await core.createSubscription({ url, events: ['certificate.issued'] });
      const wf = await n8n!.createWorkflow(verifyWorkflow('e2e: verify delivery', path, subscription.secret!, credential));
      await n8n!.publish(wf.id);
      const verified = (want: number) => verifiedItems(n8n!, wf.id, want, 20_000);
      try {
        // One delivery, sent twice with the same X-Service-Delivery (the service's at-least-once).
        sb!.controls.setDuplicateDeliveries(2);
        const issuedHere = await core.issueCertificate(batchId, { name: 'Verify Path', email: 'verify.path@example.com' });
        const first = await verified(2);
        expect(first.runs.every((e) => e.status === 'success')).toBe(true);
        expect(first.items).toHaveLength(1);
        expect(first.items[0]).toMatchObject({ type: 'certificate.issued', recipientId: issuedHere.id, deliveryId: expect.any(String) });

        // A forged request reaches the workflow (the Webhook node checks nothing) and is dropped by Verify.
        const forged = JSON.stringify({ id: 'whe_forged', type: 'certificate.issued', createdAt: new Date().toISOString(), data: issuedHere });
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-delivery': 'whd_forged', ...signPayload('wh_sec_not_the_secret', forged) }, body: forged });
        expect(res.status).toBe(200);
        const after = await verified(3);
        expect(after.items).toHaveLength(1);
      } finally {
        sb!.controls.setDuplicateDeliveries(1);
        await n8n!.unpublish(wf.id);
        await core.deleteSubscription(subscription.id);
      }
    });
  });

  it('stops n8n without leaving processes behind', async () => {
    await timed('n8n stop', async () => {
      // n8n's main process (found by its unique user folder) and its children (task runners).
      const tree = withDescendants(processesWithEnv(`N8N_USER_FOLDER=${n8n!.userFolder}`));
      if (process.platform === 'linux') expect(tree.length).toBeGreaterThan(0);
      await n8n!.stop();
      expect(alive(tree)).toEqual([]);
      expect(fs.existsSync(n8n!.userFolder)).toBe(false);
      console.log(`n8n stopped; ${tree.length} process(es) of its tree gone`);
    });
  });
});
