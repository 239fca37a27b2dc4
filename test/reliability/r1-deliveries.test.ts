/**
 * R1 deliveries: every case of the ONE table in delivery-cases.ts, through all three layers:
 *   core    checkDelivery(raw body as string and as Buffer, headers, secret)
 *   n8n     the trigger's webhook() in a fake IWebhookFunctions: 401 and no workflow data on refusal
 *   Zapier  the instant trigger's perform through zapier-platform-core's app tester: [] on refusal
 * Genuine and rotated deliveries are accepted by all three; everything else by none.
 * A replayed delivery id starts no second n8n execution (nor a second Zapier run).
 */
import zapier, { type Bundle, type ZObject } from 'zapier-platform-core';
import type { IDataObject, IWebhookResponseData } from 'n8n-workflow';

import { checkDelivery, type WebhookEvent } from '@certificate-service/sdk/core';
import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';
import { resetDeliveryMemory } from '../../n8n/nodes/shared/delivery-memory';
import App from '../../zapier/src';
import { fakeWebhook } from '../n8n/fake-context';
import { API_KEY, BASE_URL } from '../support/service';
import { DELIVERY_CASES, SECRET, eventOf, n8nHeaders, nowSeconds, signed, zapierHeaders, zapierTriggerKey, type Delivery } from './delivery-cases';

const ALL_EVENTS = ['certificate.issued', 'certificate.sent', 'certificate.failed', 'certificate.viewed'];
const trigger = new CertificateServiceTrigger();
const appTester = zapier.createAppTester(App);
type Perform = (z: ZObject, bundle: Bundle) => Promise<unknown[]>;
const triggers = App.triggers as unknown as Record<string, { operation: { perform: Perform } }>;

const accepted = DELIVERY_CASES.filter((c) => c.accept);
const refused = DELIVERY_CASES.filter((c) => !c.accept);

/** One delivery through the n8n trigger, with this node's persistent static data. */
async function n8nReceive(d: Delivery, staticData: IDataObject = { subscriptionId: 'whs_rel', secret: d.receiverSecret }) {
  const { context, response, answer } = fakeWebhook({
    params: { events: ALL_EVENTS, batch: { __rl: true, mode: 'list', value: '' } },
    rawBody: Buffer.from(d.body),
    headers: n8nHeaders(d.headers),
    staticData,
    workflowId: 'wf-r1',
    nodeId: 'trigger-r1',
  });
  const result: IWebhookResponseData = await trigger.webhook.call(context);
  const seen = { ...response }; // what webhook() itself wrote, before n8n's own answer
  if (result.workflowData) answer(200); // n8n stored and started the run, and answered 200
  return { result, response: seen };
}

/** One delivery through the Zapier trigger of its event type, as Zapier hands it to perform. */
async function zapierReceive(d: Delivery, type = d.event.type): Promise<unknown[]> {
  const perform = triggers[zapierTriggerKey(type)].operation.perform;
  return await appTester(perform, {
    authData: { apiKey: API_KEY, baseUrl: BASE_URL },
    inputData: {},
    subscribeData: { id: 'whs_rel', secret: d.receiverSecret },
    rawRequest: { method: 'POST', querystring: '', headers: zapierHeaders(d.headers), content: d.body },
  } as unknown as Bundle);
}

beforeEach(() => resetDeliveryMemory());

// zapier-platform-core's z.console may print each dropped delivery (once any test in this
// worker has set LOG_TO_STDOUT); it is expected here, so it is kept out of the test output.
let consoleLog: jest.SpyInstance;
beforeAll(() => (consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined)));
afterAll(() => consoleLog.mockRestore());

it('the table has genuine, rotated and every required kind of hostile delivery', () => {
  const names = DELIVERY_CASES.map((c) => c.name).join('\n');
  for (const kind of [/^genuine/m, /^rotated: .*new.*old/m, /^forged/m, /^tampered/m, /^stale/m, /^future/m, /^missing X-Service-Signature/m, /^malformed/m, /^t ≠ X-Service-Timestamp/m, /^wrong secret/m]) {
    expect(names).toMatch(kind);
  }
  expect(accepted.length).toBeGreaterThanOrEqual(8);
  expect(refused.length).toBeGreaterThanOrEqual(15);
});

describe('core: checkDelivery', () => {
  it.each(accepted.map((c) => [c.name, c] as const))('accepts: %s', (_name, c) => {
    const d = c.make(nowSeconds());
    for (const raw of [d.body, Buffer.from(d.body)]) {
      const result = checkDelivery(raw, d.headers, d.receiverSecret);
      expect(result).toMatchObject({ ok: true, event: { id: d.event.id, type: d.event.type } });
    }
  });

  it.each(refused.map((c) => [c.name, c] as const))('refuses: %s', (_name, c) => {
    const d = c.make(nowSeconds());
    const asString = checkDelivery(d.body, d.headers, d.receiverSecret);
    expect(asString.ok).toBe(false);
    if (!asString.ok) expect(asString.reason).toBe(c.reasons![0]);
    const asBuffer = checkDelivery(Buffer.from(d.body), d.headers, d.receiverSecret);
    expect(asBuffer.ok).toBe(false);
    if (!asBuffer.ok) expect(c.reasons).toContain(asBuffer.reason);
  });
});

describe('n8n: CertificateServiceTrigger.webhook()', () => {
  it.each(accepted.map((c) => [c.name, c] as const))('accepts and starts the workflow once: %s', async (_name, c) => {
    const d = c.make(nowSeconds());
    const { result, response } = await n8nReceive(d);
    expect(response.statusCode).toBeUndefined();
    expect(result.workflowData).toHaveLength(1);
    expect(result.workflowData![0]).toHaveLength(1);
    expect(result.workflowData![0][0].json).toMatchObject({ id: d.event.id, type: d.event.type, recipientId: d.event.data.id });
  });

  it.each(refused.map((c) => [c.name, c] as const))('answers 401 and starts nothing: %s', async (_name, c) => {
    const d = c.make(nowSeconds());
    const { result, response } = await n8nReceive(d);
    expect(result).toEqual({ noWebhookResponse: true });
    expect(result.workflowData).toBeUndefined();
    expect(response.statusCode).toBe(401);
    expect(c.reasons).toContain((response.body as { error: string }).error);
  });

  it('a replayed delivery id starts no second execution (same process, and after a restart)', async () => {
    const d = signed(eventOf(), SECRET, nowSeconds());
    const staticData: IDataObject = { subscriptionId: 'whs_rel', secret: SECRET };
    const first = await n8nReceive(d, staticData);
    expect(first.result.workflowData).toHaveLength(1);

    const again = await n8nReceive(d, staticData);
    expect(again.result.workflowData).toBeUndefined();
    expect(again.result.webhookResponse).toMatchObject({ duplicate: true });
    expect(again.response.statusCode).toBeUndefined(); // 2xx: the service must not retry it

    // A redelivery re-signed with a fresh timestamp but the same delivery id is still a replay.
    const resigned = { ...d, headers: { ...d.headers, ...signed(d.event, SECRET, nowSeconds() + 1).headers, 'X-Service-Delivery': d.headers['X-Service-Delivery'] } };
    expect((await n8nReceive(resigned, staticData)).result.workflowData).toBeUndefined();

    // n8n restarted: the in-memory ids are gone, the saved static data still knows the id.
    resetDeliveryMemory();
    const afterRestart = await n8nReceive(d, JSON.parse(JSON.stringify(staticData)) as IDataObject);
    expect(afterRestart.result.workflowData).toBeUndefined();

    // Another delivery id goes through.
    expect((await n8nReceive(signed(eventOf(), SECRET, nowSeconds()), staticData)).result.workflowData).toHaveLength(1);
  });
});

describe('Zapier: instant trigger perform (app tester)', () => {
  it.each(accepted.map((c) => [c.name, c] as const))('accepts: %s', async (_name, c) => {
    const d = c.make(nowSeconds());
    const items = await zapierReceive(d);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ id: d.event.id, type: d.event.type, recipientId: d.event.data.id });
  });

  it.each(refused.map((c) => [c.name, c] as const))('returns []: %s', async (_name, c) => {
    const d = c.make(nowSeconds());
    expect(await zapierReceive(d)).toEqual([]);
  });

  it('a replayed delivery id gives [] the second time', async () => {
    const d = signed(eventOf('certificate.sent'), SECRET, nowSeconds());
    expect(await zapierReceive(d)).toHaveLength(1);
    expect(await zapierReceive(d)).toEqual([]);
  });
});

// Issue 25's table row: "a signed envelope whose `data` is `[]` or `{}`: accepted; the output has
// no recipient id". The spec does not show the test delivery's body, so such an envelope is
// answered 2xx (a non-2xx is retried 7 times) and never run as a certificate event, by each host.
describe('a signed envelope whose data is [] or {}', () => {
  const sample = (data: unknown) => signed({ ...eventOf('certificate.issued'), data } as unknown as WebhookEvent, SECRET, nowSeconds());

  it.each([
    ['[]', []],
    ['{}', {}],
  ])('data %s: core refuses it as a certificate event; n8n answers 200 and starts nothing; Zapier emits nothing', async (_what, data) => {
    const d = sample(data);
    expect(checkDelivery(d.body, d.headers, SECRET)).toMatchObject({ ok: false, reason: 'NOT_CERTIFICATE_EVENT' });
    const { result, response } = await n8nReceive(d);
    expect(result.workflowData).toBeUndefined();
    expect(response.statusCode).toBeUndefined(); // n8n answers the webhookResponse 200
    expect(result.webhookResponse).toMatchObject({ received: true, notCertificate: true });
    expect(await zapierReceive(d)).toEqual([]);
  });
});
