/**
 * R5 lifecycle: 50 activate/deactivate cycles of the n8n trigger (checkExists → create, then
 * delete, through a fake IHookFunctions whose static data persists across cycles, as n8n's
 * does) and 50 subscribe/unsubscribe cycles of a Zapier instant trigger (app tester) leave
 * 0 subscriptions on the sandbox. A subscription the service deletes behind the connector's
 * back (deleted in the web app, or auto-removed after a 410) is re-created on the next
 * activation: checkExists → false → create.
 */
import http from 'node:http';
import https from 'node:https';
import zapier, { type Bundle, type ZObject } from 'zapier-platform-core';
import type { IDataObject } from 'n8n-workflow';

import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';
import App from '../../zapier/src';
import { fakeHook, type Credentials } from '../n8n/fake-context';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { startReceiver, type Receiver } from '@certificate-service/sandbox/testing';

jest.setTimeout(60_000);

// zapier-platform-core patches http(s).request process-wide; the sandbox's webhook sender
// in this process needs the originals (see test/zapier/e2e.sandbox.test.ts).
// The flag is put back afterwards so later test files in this worker see what they expect.
const patchedBefore = [http, https].map((m) => (m as { patchedByZapier?: boolean }).patchedByZapier);
Object.assign(http, { patchedByZapier: true });
Object.assign(https, { patchedByZapier: true });
afterAll(() => [http, https].forEach((m, i) => Object.assign(m, { patchedByZapier: patchedBefore[i] })));

const CYCLES = 50;
const EVENTS = ['certificate.issued', 'certificate.viewed'];
const hooks = new CertificateServiceTrigger().webhookMethods.default;

let sb: Sandbox;
let receiver: Receiver;

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false, timeScale: 0.0001, mailDelayMs: 1, deliveryTimeoutMs: 2000 });
  receiver = await startReceiver(() => 200);
});
afterAll(async () => {
  await receiver.close();
  await sb.close();
});

function workspace(): { workspaceId: string; credentials: Credentials } {
  const ws = sb.controls.createWorkspace();
  return { workspaceId: ws.workspaceId, credentials: { apiKey: ws.apiKey, baseUrl: sb.url } };
}

/** What n8n does on activation: create only when checkExists says there is none. */
async function activate(hook: ReturnType<typeof fakeHook>): Promise<'kept' | 'created'> {
  if (await hooks.checkExists.call(hook.context)) return 'kept';
  expect(await hooks.create.call(hook.context)).toBe(true);
  return 'created';
}

/** A fresh workspace, and the trigger activated there once (its static data kept, as n8n keeps it). */
async function activatedOnce() {
  const { workspaceId, credentials } = workspace();
  const staticData: IDataObject = {};
  const hook = () => fakeHook({ params: { events: EVENTS }, webhookUrl: receiver.url, credentials, staticData });
  expect(await activate(hook())).toBe('created');
  return { workspaceId, credentials, staticData, hook, firstId: staticData.subscriptionId as string };
}

describe('n8n trigger', () => {
  it(`${CYCLES} activate/deactivate cycles leave 0 subscriptions`, async () => {
    const { workspaceId, credentials } = workspace();
    const staticData: IDataObject = {}; // persists across cycles, like the workflow's static data
    const seenIds = new Set<string>();
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: receiver.url, credentials, staticData });
      expect(await activate(hook)).toBe('created');
      const subs = sb.controls.subscriptions(workspaceId);
      expect(subs).toHaveLength(1);
      expect(subs[0]).toMatchObject({ id: staticData.subscriptionId, url: receiver.url, secret: staticData.secret });
      seenIds.add(subs[0].id);
      // A second activation check while active keeps the same subscription.
      expect(await hooks.checkExists.call(fakeHook({ params: { events: EVENTS }, webhookUrl: receiver.url, credentials, staticData }).context)).toBe(true);
      expect(await hooks.delete.call(hook.context)).toBe(true);
      expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
      expect(staticData).toEqual({});
    }
    expect(seenIds.size).toBe(CYCLES);
    expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
  });

  it('re-creates a subscription the service deleted behind its back (web app delete)', async () => {
    const { workspaceId, credentials, staticData, hook, firstId } = await activatedOnce();

    // Deleted in the web app: straight through the API, not through the connector.
    const res = await fetch(`${sb.baseUrl}/webhooks/subscriptions/${firstId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${credentials.apiKey}` } });
    expect(res.status).toBe(204);
    expect(sb.controls.subscriptions(workspaceId)).toEqual([]);

    // n8n restarts / re-activates: checkExists sees the 404, forgets it, and create re-subscribes.
    const h = hook();
    expect(await hooks.checkExists.call(h.context)).toBe(false);
    expect(await hooks.create.call(h.context)).toBe(true);
    const subs = sb.controls.subscriptions(workspaceId);
    expect(subs).toHaveLength(1);
    expect(subs[0].id).not.toBe(firstId);
    expect(subs[0]).toMatchObject({ id: staticData.subscriptionId, url: receiver.url, secret: staticData.secret });

    expect(await hooks.delete.call(hook().context)).toBe(true);
    expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
  });

  it('re-creates a subscription the service removed after its endpoint answered 410', async () => {
    const { workspaceId, credentials, staticData, hook, firstId } = await activatedOnce();

    receiver.respond(() => 410); // the workflow's URL is gone: the service unsubscribes it
    try {
      const test = await fetch(`${sb.baseUrl}/webhooks/subscriptions/${firstId}/test`, { method: 'POST', headers: { Authorization: `Bearer ${credentials.apiKey}` } });
      expect(test.status).toBe(202);
      await sb.controls.waitForDeliveries((log) => log.some((d) => d.subscriptionId === firstId && d.outcome === 'unsubscribed'), 5000);
    } finally {
      receiver.respond(() => 200);
    }
    expect(sb.controls.subscriptions(workspaceId)).toEqual([]);

    expect(await activate(hook())).toBe('created');
    expect(sb.controls.subscriptions(workspaceId)).toHaveLength(1);
    expect(staticData.subscriptionId).not.toBe(firstId);
    expect(await hooks.delete.call(hook().context)).toBe(true);
    expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
  });
});

describe('Zapier instant trigger', () => {
  const appTester = zapier.createAppTester(App);
  type Fn = (z: ZObject, bundle: Bundle) => Promise<unknown>;
  const operation = (App.triggers as unknown as Record<string, { operation: Record<string, Fn> }>).certificate_issued.operation;

  it(`${CYCLES} subscribe/unsubscribe cycles leave 0 subscriptions`, async () => {
    const { workspaceId, credentials } = workspace();
    const authData = { apiKey: credentials.apiKey, baseUrl: sb.baseUrl };
    const seenIds = new Set<string>();
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const targetUrl = `${receiver.url}?zap=${cycle}`;
      const subscribeData = (await appTester(operation.performSubscribe, { authData, targetUrl, inputData: {} } as unknown as Bundle)) as { id: string; secret: string };
      expect(subscribeData.secret).toMatch(/^wh_sec_/);
      const subs = sb.controls.subscriptions(workspaceId);
      expect(subs).toHaveLength(1);
      expect(subs[0]).toMatchObject({ id: subscribeData.id, url: targetUrl, events: ['certificate.issued'] });
      seenIds.add(subscribeData.id);
      await appTester(operation.performUnsubscribe, { authData, subscribeData, inputData: {} } as unknown as Bundle);
      expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
    }
    expect(seenIds.size).toBe(CYCLES);
  });

  it('unsubscribing one the service already deleted succeeds, and turning the Zap on again re-subscribes', async () => {
    const { workspaceId, credentials } = workspace();
    const authData = { apiKey: credentials.apiKey, baseUrl: sb.baseUrl };
    const first = (await appTester(operation.performSubscribe, { authData, targetUrl: receiver.url, inputData: {} } as unknown as Bundle)) as { id: string };
    await fetch(`${sb.baseUrl}/webhooks/subscriptions/${first.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${credentials.apiKey}` } });
    await expect(appTester(operation.performUnsubscribe, { authData, subscribeData: first, inputData: {} } as unknown as Bundle)).resolves.toMatchObject({ alreadyDeleted: true });
    const second = (await appTester(operation.performSubscribe, { authData, targetUrl: receiver.url, inputData: {} } as unknown as Bundle)) as { id: string };
    expect(sb.controls.subscriptions(workspaceId).map((s) => s.id)).toEqual([second.id]);
    await appTester(operation.performUnsubscribe, { authData, subscribeData: second, inputData: {} } as unknown as Bundle);
    expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
  });
});
