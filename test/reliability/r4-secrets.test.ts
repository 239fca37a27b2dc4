/**
 * R4 secrets: one whole e2e run against the sandbox — the core flow (demo/core-flow.ts), every n8n
 * node operation, the n8n trigger's lifecycle and real signed deliveries (genuine, forged,
 * rotated), and the Zapier app (auth test, creates, searches, a trigger's subscribe /
 * deliveries / unsubscribe) — with a distinctive API key made through the sandbox controls.
 * Neither the API key (nor an expired second key) nor any signing secret may appear in
 * what users and operators see: console output, the n8n contexts' logger, thrown errors
 * (message, description, JSON), output items and webhook responses.
 *
 * Not scanned, because holding the secret is their job: the n8n trigger's static data and
 * the Zapier subscribeData (where the connectors store the signing secret), and the
 * requests themselves (they must carry the key).
 */
import http from 'node:http';
import https from 'node:https';
import zapier, { type Bundle, type ZObject } from 'zapier-platform-core';
import type { IDataObject } from 'n8n-workflow';

import { signPayload, type WebhookEvent } from '@certificate-service/sdk/core';
import { createClient } from '@certificate-service/sdk';
import undici = require('undici'); // the module object itself, so its request can be wrapped
import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';
import { resetDeliveryMemory } from '../../n8n/nodes/shared/delivery-memory';
import App from '../../zapier/src';
import { runCoreFlow } from '../../demo/core-flow';
import { fakeExecute, fakeHook, fakeWebhook, inputItems, rl, type Credentials, type ParamsFor } from '../n8n/fake-context';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { startReceiver, type Received, type Receiver } from '@certificate-service/sandbox/testing';
import { n8nHeaders, zapierHeaders } from './delivery-cases';

jest.setTimeout(60_000);

// zapier-platform-core patches http(s).request process-wide; the sandbox's webhook sender
// in this same process needs the originals (see test/zapier/e2e.sandbox.test.ts).
// The flag is put back afterwards so later test files in this worker see what they expect.
const patchedBefore = [http, https].map((m) => (m as { patchedByZapier?: boolean }).patchedByZapier);
Object.assign(http, { patchedByZapier: true });
Object.assign(https, { patchedByZapier: true });
afterAll(() => [http, https].forEach((m, i) => Object.assign(m, { patchedByZapier: patchedBefore[i] })));

let sb: Sandbox;
let receiver: Receiver;
let apiKey: string;
let expiredKey: string;
let workspaceId: string;
const secrets = new Set<string>();

/** Everything a user or operator could see, as text. */
const seen: string[] = [];
const see = (label: string, value: unknown) => seen.push(`${label}: ${typeof value === 'string' ? value : safeJson(value)}`);
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (v instanceof Error ? { ...v, name: v.name, message: v.message } : typeof v === 'bigint' ? String(v) : v));
  } catch {
    return String(value);
  }
}
/** A thrown error in every form it is shown: message, description, JSON, cause chain. */
function seeError(label: string, error: unknown): void {
  const e = error as { message?: string; description?: string; cause?: unknown; toJSON?: () => unknown };
  see(`${label} message`, e?.message ?? String(error));
  if (e?.description) see(`${label} description`, e.description);
  see(`${label} json`, error);
  if (typeof e?.toJSON === 'function') see(`${label} toJSON`, e.toJSON());
  let cause = e?.cause;
  for (let depth = 0; cause && depth < 5; depth++) {
    see(`${label} cause`, (cause as Error).message ?? cause);
    cause = (cause as { cause?: unknown }).cause;
  }
}
const logger = {
  debug: (m: string, meta?: unknown) => see('logger.debug', [m, meta]),
  info: (m: string, meta?: unknown) => see('logger.info', [m, meta]),
  warn: (m: string, meta?: unknown) => see('logger.warn', [m, meta]),
  error: (m: string, meta?: unknown) => see('logger.error', [m, meta]),
};
/** Gives a fake n8n context the capturing logger. */
function withLogger<T extends object>(context: T): T {
  (context as unknown as { logger: typeof logger }).logger = logger;
  return context;
}
const rememberSecrets = () => {
  for (const s of sb.controls.subscriptions(workspaceId)) {
    secrets.add(s.secret);
    if (s.previousSecret) secrets.add(s.previousSecret);
  }
};

const restore: Array<() => void> = [];
beforeAll(async () => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => see(`console.${method}`, args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' ')));
    restore.push(() => spy.mockRestore());
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      see('stdio', String(chunk));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => void (stream.write = original as typeof stream.write));
  }
  // Every signing secret the sandbox hands out over fetch (create and rotate responses),
  // including those of subscriptions deleted before the scan.
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
    const response = await realFetch(...args);
    const text = await response.clone().text();
    for (const m of text.matchAll(/wh_sec_[A-Za-z0-9_-]+/g)) secrets.add(m[0]);
    return response;
  }) as typeof fetch;
  restore.push(() => void (globalThis.fetch = realFetch));
  // …and over undici.request, the transport of the SDK's createClient (its body is read here, then handed on).
  const realRequest = undici.request;
  undici.request = (async (...args: Parameters<typeof undici.request>) => {
    const response = await realRequest(...args);
    const text = await response.body.text();
    for (const m of text.matchAll(/wh_sec_[A-Za-z0-9_-]+/g)) secrets.add(m[0]);
    return { ...response, body: { text: async () => text } };
  }) as typeof undici.request;
  restore.push(() => void (undici.request = realRequest));
  process.env.LOG_TO_STDOUT = '1'; // zapier-platform-core's app tester then prints z.console and its HTTP log
  sb = await createSandbox({ rateLimit: false, timeScale: 0.0001, mailDelayMs: 5, deliveryTimeoutMs: 2000 });
  const ws = sb.controls.createWorkspace({ username: 'R4 secrets', quota: 5_000 });
  workspaceId = ws.workspaceId;
  apiKey = ws.apiKey;
  expiredKey = sb.controls.createApiKey(workspaceId, { expired: true }).apiKey;
  receiver = await startReceiver(() => 200);
});
afterAll(async () => {
  delete process.env.LOG_TO_STDOUT;
  for (const undo of restore.reverse()) undo();
  await receiver?.close();
  await sb?.close();
});

async function node(params: ParamsFor, options: { items?: number; continueOnFail?: boolean; credentials?: Credentials } = {}) {
  const fake = fakeExecute({ params, credentials: options.credentials ?? { apiKey, baseUrl: sb.url }, items: inputItems(options.items ?? 1), continueOnFail: options.continueOnFail });
  withLogger(fake.context);
  try {
    const [output] = await new CertificateService().execute.call(fake.context);
    see('n8n output', output.map((o) => o.json));
    return output;
  } catch (error) {
    seeError('n8n error', error);
    return undefined;
  }
}

it('a distinctive key, not the demo key', () => {
  expect(apiKey).toMatch(/^sk_live_sandbox_[0-9a-f]{32}$/);
  expect(apiKey).not.toBe(sb.apiKey);
});

it('the core flow (demo) with this key', async () => {
  const steps: string[] = [];
  await runCoreFlow({ ...sb, apiKey } as Sandbox, (label, detail) => steps.push(`${label} ${detail}`));
  rememberSecrets();
  expect(steps.length).toBeGreaterThanOrEqual(8);
  for (const s of steps) see('core flow step', s);
  // Errors of the core itself: a refused key and an outcome-unknown issue.
  await createClient({ baseUrl: sb.baseUrl, apiKey: expiredKey }).auth().catch((e: unknown) => seeError('core expired key', e));
  const client = createClient({ baseUrl: sb.baseUrl, apiKey });
  const batch = await client.createBatch({ title: 'R4 core', designId: 'design_classic' });
  sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: `/api/v1/batches/${batch.id}/recipients` } });
  await client.issueCertificate(batch.id, { name: 'Reset', email: 'reset@example.com' }).catch((e: unknown) => seeError('core outcome unknown', e));
});

it('every n8n node operation, including its errors', async () => {
  await node({ resource: 'design', operation: 'getMany', returnAll: true });
  const [batch] = (await node({ resource: 'batch', operation: 'create', title: 'R4 n8n', design: rl('design_modern') }))!;
  const batchId = batch.json.id as string;
  await node({ resource: 'batch', operation: 'get', batch: rl(batchId) });
  await node({ resource: 'batch', operation: 'getMany', returnAll: false, limit: 5 });
  const issued = (await node((i) => ({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: `N ${i}`, email: i === 7 ? 'n7@bounce.test' : `n${i}@example.com`, send: true, specifyData: 'json', dataJson: { i } }), { items: 120 }))!;
  const first = issued[0].json as IDataObject;
  await node({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: 'One', email: 'one@example.com', options: { batchRequests: false } });
  await node({ resource: 'certificate', operation: 'getMany', batch: rl(batchId), returnAll: true });
  await node({ resource: 'certificate', operation: 'get', batch: rl(batchId), recipientId: first.id });
  await node({ resource: 'certificate', operation: 'update', batch: rl(batchId), recipientId: first.id, updateFields: { name: 'Renamed' }, specifyData: 'keep' });
  await node({ resource: 'certificate', operation: 'send', batch: rl(batchId), recipientId: issued[1].json.id });
  await node({ resource: 'certificate', operation: 'getByCertificateId', certificateId: first.certificateId });
  await node({ resource: 'certificate', operation: 'getByShareToken', shareToken: first.shareToken });
  await node({ resource: 'certificate', operation: 'delete', batch: rl(batchId), recipientId: first.id });
  await node({ resource: 'batch', operation: 'archive', batch: rl(batchId) });
  // errors: archived batch (continue on fail), unknown recipient, bad input, refused key, 5xx, reset after commit
  await node({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: 'Late', email: 'late@example.com' }, { continueOnFail: true });
  await node({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: 'Late', email: 'late@example.com' });
  await node({ resource: 'batch', operation: 'unarchive', batch: rl(batchId) });
  await node({ resource: 'certificate', operation: 'get', batch: rl(batchId), recipientId: 'rec_missing' });
  await node({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: 'Bad', email: 'not-an-email' });
  await node({ resource: 'design', operation: 'getMany', returnAll: true }, { credentials: { apiKey: expiredKey, baseUrl: sb.url } });
  sb.controls.injectFaults({ kind: '500', match: { method: 'POST' }, count: 1 });
  await node({ resource: 'batch', operation: 'create', title: 'Fails', design: rl('design_classic') });
  sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: /\/recipients\/bulk$/ } });
  await node((i) => ({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: `R ${i}`, email: `r${i}@example.com` }), { items: 3, continueOnFail: true });
  expect(sb.controls.counters().requests.total).toBeGreaterThan(20);
});

it('the n8n trigger: lifecycle, genuine / forged / rotated / replayed deliveries', async () => {
  resetDeliveryMemory();
  const trigger = new CertificateServiceTrigger();
  const events = ['certificate.issued', 'certificate.sent', 'certificate.failed', 'certificate.viewed'];
  const hook = fakeHook({ params: { events }, webhookUrl: receiver.url, credentials: { apiKey, baseUrl: sb.url } });
  withLogger(hook.context);
  const methods = trigger.webhookMethods.default;
  expect(await methods.checkExists.call(hook.context)).toBe(false);
  expect(await methods.create.call(hook.context)).toBe(true);
  rememberSecrets();
  expect(await methods.checkExists.call(hook.context)).toBe(true);

  const deliver = async (r: Received, staticData = hook.staticData) => {
    const { context, response } = fakeWebhook({ params: { events }, rawBody: Buffer.from(r.rawBody), headers: r.headers as Record<string, string>, staticData });
    withLogger(context);
    const result = await trigger.webhook.call(context);
    see('n8n webhook result', result);
    see('n8n webhook response', response);
    return result;
  };

  const client = createClient({ baseUrl: sb.baseUrl, apiKey });
  const batch = await client.createBatch({ title: 'R4 trigger', designId: 'design_classic' });
  receiver.clear();
  sb.controls.setDuplicateDeliveries(2);
  await client.issueCertificate(batch.id, { name: 'Hook', email: 'hook@example.com' }, { send: true });
  await client.issueCertificate(batch.id, { name: 'Bounce', email: 'hook@bounce.test' }, { send: true });
  const received = await receiver.waitFor(8, 5000);
  sb.controls.setDuplicateDeliveries(1);
  const started = [];
  for (const r of received) started.push(await deliver(r));
  // 2 issued, 1 sent, 1 failed, each delivered twice: one execution per delivery id.
  const uniqueIds = new Set(received.map((r) => r.headers['x-service-delivery'])).size;
  expect(uniqueIds).toBeGreaterThanOrEqual(4);
  expect(started.filter((s) => s.workflowData).length).toBe(uniqueIds);
  // forged (another secret) and tampered
  await deliver(received[0], { ...hook.staticData, secret: 'wh_sec_forged_0000' });
  await deliver({ ...received[1], rawBody: received[1].rawBody.replace('Hook', 'Hacker') });

  // rotation: the service signs with new and old; the trigger still holds the old one
  const subscriptionId = hook.staticData.subscriptionId as string;
  await client.rotateSubscriptionSecret(subscriptionId); // its return value is the secret, for the caller to store
  rememberSecrets();
  receiver.clear();
  await client.issueCertificate(batch.id, { name: 'Rotated', email: 'rotated@example.com' });
  const [rotated] = await receiver.waitFor(1, 5000);
  expect(String(rotated.headers['x-service-signature']).match(/v1=/g)).toHaveLength(2);
  expect((await deliver(rotated)).workflowData).toHaveLength(1);

  expect(hook.warnings.length + seen.length).toBeGreaterThan(0);
  expect(await methods.delete.call(hook.context)).toBe(true);
  expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
});

it('the Zapier app: auth test, creates, searches, a trigger subscribe / deliveries / unsubscribe', async () => {
  const appTester = zapier.createAppTester(App);
  const authData = { apiKey, baseUrl: sb.baseUrl };
  type Fn = (z: ZObject, bundle: Bundle) => Promise<unknown>;
  const app = App as unknown as Record<string, Record<string, { operation: Record<string, Fn> }>> & { authentication: { test: Fn } };
  const run = async (label: string, fn: Fn, bundle: Record<string, unknown>) => {
    try {
      const out = await appTester(fn, { authData, ...bundle } as unknown as Bundle);
      if (label !== 'performSubscribe') see(`zapier ${label}`, out); // subscribeData: the secret's home
      return out;
    } catch (error) {
      seeError(`zapier ${label}`, error);
      return undefined;
    }
  };
  await run('auth test', app.authentication.test, {});
  await run('auth test, expired key', app.authentication.test, { authData: { ...authData, apiKey: expiredKey } });
  const batch = (await run('create batch', app.creates.create_batch.operation.perform, { inputData: { title: 'R4 zapier', design_id: 'design_classic' } })) as { id: string };
  const recipient = (await run('issue', app.creates.issue_certificate.operation.perform, { inputData: { batch_id: batch.id, name: 'Zap', email: 'zap@example.com', send: 'true' } })) as { certificateId: string; shareToken: string };
  await run('issue, bad email', app.creates.issue_certificate.operation.perform, { inputData: { batch_id: batch.id, name: 'Zap', email: 'zap' } });
  await run('issue, unknown batch', app.creates.issue_certificate.operation.perform, { inputData: { batch_id: 'batch_missing', name: 'Zap', email: 'zap@example.com' } });
  await run('issue, expired key', app.creates.issue_certificate.operation.perform, { authData: { ...authData, apiKey: expiredKey }, inputData: { batch_id: batch.id, name: 'Zap', email: 'zap@example.com' } });
  await run('find certificate', app.searches.find_certificate.operation.perform, { inputData: { certificate_id: recipient.certificateId } });
  await run('find by token', app.searches.find_certificate_by_token.operation.perform, { inputData: { share_token: recipient.shareToken } });

  const trigger = app.triggers.certificate_issued.operation;
  const subscribeData = (await run('performSubscribe', trigger.performSubscribe, { targetUrl: receiver.url, inputData: {} })) as { id: string; secret: string };
  rememberSecrets();
  expect(subscribeData.secret).toMatch(/^wh_sec_/);
  receiver.clear();
  await createClient({ baseUrl: sb.baseUrl, apiKey }).issueCertificate(batch.id, { name: 'Zap Hook', email: 'zaphook@example.com' });
  const [r] = await receiver.waitFor(1, 5000);
  const rawRequest = { method: 'POST', querystring: '', headers: zapierHeaders(r.headers as Record<string, string>), content: r.rawBody };
  expect(await run('perform', trigger.perform, { subscribeData, inputData: {}, rawRequest })).toHaveLength(1);
  expect(await run('perform, replay', trigger.perform, { subscribeData, inputData: {}, rawRequest })).toEqual([]);
  expect(await run('perform, forged', trigger.perform, { subscribeData: { ...subscribeData, secret: 'wh_sec_forged_1111' }, inputData: {}, rawRequest: { ...rawRequest, headers: zapierHeaders({ ...n8nHeaders(r.headers as Record<string, string>), 'x-service-delivery': 'whd_forged' }) } })).toEqual([]);
  // A self-signed delivery with the real secret but a tampered body.
  const tampered: WebhookEvent = { ...(JSON.parse(r.rawBody) as WebhookEvent), id: 'whe_tampered' };
  const body = JSON.stringify(tampered);
  const headers = zapierHeaders({ 'X-Service-Delivery': 'whd_tampered', ...signPayload(subscribeData.secret, body) });
  expect(await run('perform, tampered', trigger.perform, { subscribeData, inputData: {}, rawRequest: { ...rawRequest, headers, content: body.replace('Zap Hook', 'Mallory') } })).toEqual([]);
  await run('performList', trigger.performList, { inputData: { batch_id: batch.id } });
  await run('performUnsubscribe', trigger.performUnsubscribe, { subscribeData });
  expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
});

it('no key and no signing secret anywhere in logs, errors, outputs or responses', () => {
  rememberSecrets();
  expect(secrets.size).toBeGreaterThanOrEqual(4); // core flow, n8n (before and after rotation), Zapier
  const text = seen.join('\n');
  // Enough was captured for the scan to mean something: outputs, errors, logs.
  expect(seen.length).toBeGreaterThan(50);
  expect(text).toMatch(/Outcome unknown/);
  expect(text).toMatch(/EXPIRED_API_KEY|expired/);
  expect(text).toMatch(/NO_MATCHING_SIGNATURE/);
  const needles = [apiKey, expiredKey, ...secrets];
  // Also the random part alone (a key or secret printed without its prefix, or cut short).
  for (const s of [...needles]) needles.push(s.replace(/^(sk_live_sandbox_|wh_sec_)/, '').slice(0, 16));
  if (process.env.R4_DUMP) require('node:fs').writeFileSync(process.env.R4_DUMP, text);
  const leaks = needles.filter((needle) => text.includes(needle));
  const where = leaks.map((needle) => seen.find((line) => line.includes(needle))!.slice(0, 300));
  expect(where).toEqual([]);
});
