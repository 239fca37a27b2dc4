/**
 * Certificate Service Trigger: the subscription lifecycle (checkExists / create / delete
 * with state in node static data) against nock, and webhook() with valid, forged, stale,
 * duplicate and filtered deliveries, signed with the core's signPayload.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { flattenEvent, signPayload } from '@certificate-service/sdk/core';
import type { WebhookEvent } from '@certificate-service/sdk/core';
import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';
import { isDuplicateDelivery, MEMORY_DELIVERIES, resetDeliveryMemory } from '../../n8n/nodes/CertificateServiceTrigger/deliveries';
import { API, BASE, apiError, recipient } from './fixtures';
import { fakeHook, fakeWebhook, rl } from './fake-context';
import { setupNock } from '../support/nock';

// The core waits with n8n-workflow's sleep between retries; no real waiting in unit tests.
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async () => undefined),
}));

const trigger = new CertificateServiceTrigger();
const hooks = trigger.webhookMethods.default;
const PROD_URL = 'https://n8n.example.test/webhook/abc/webhook';
const TEST_URL = 'https://n8n.example.test/webhook-test/abc/webhook';
const SECRET = 'wh_sec_0123456789abcdef';
const EVENTS = ['certificate.issued', 'certificate.viewed'];

setupNock();

describe('lifecycle', () => {
	const subscription = (overrides: IDataObject = {}) => ({ id: 'sub_1', url: PROD_URL, events: EVENTS, ...overrides });

	it('checkExists without a stored subscription lists the service\'s: none for this URL is false', async () => {
		nock(BASE)
			.get(`${API}/webhooks/subscriptions`)
			.reply(200, { data: [subscription({ id: 'sub_other', url: 'https://n8n.example.test/webhook/other/webhook' })], nextCursor: null, hasMore: false });
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: PROD_URL });
		await expect(hooks.checkExists.call(hook.context)).resolves.toBe(false);
		expect(hook.requests.map((r) => r.method)).toEqual(['GET']);
		expect(hook.staticData).toEqual({});
	});

	it('checkExists adopts the service\'s subscription for this URL when the stored id is gone: rotates its secret and keeps it', async () => {
		nock(BASE)
			.get(`${API}/webhooks/subscriptions`)
			.reply(200, { data: [subscription({ id: 'sub_lost', events: [...EVENTS].reverse() })], nextCursor: null, hasMore: false });
		nock(BASE).post(`${API}/webhooks/subscriptions/sub_lost/rotate-secret`).reply(200, { id: 'sub_lost', secret: 'wh_sec_rotated' });
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: PROD_URL });
		await expect(hooks.checkExists.call(hook.context)).resolves.toBe(true);
		expect(hook.staticData).toEqual({ subscriptionId: 'sub_lost', secret: 'wh_sec_rotated', webhookUrl: PROD_URL, deliveryIds: [] });
	});

	it('checkExists adopts one subscription for this URL and removes the others (other events, or a second copy)', async () => {
		nock(BASE)
			.get(`${API}/webhooks/subscriptions`)
			.reply(200, {
				data: [subscription({ id: 'sub_a', events: ['certificate.sent'] }), subscription({ id: 'sub_b' }), subscription({ id: 'sub_c' })],
				nextCursor: null,
				hasMore: false,
			});
		nock(BASE).delete(`${API}/webhooks/subscriptions/sub_a`).reply(204);
		nock(BASE).post(`${API}/webhooks/subscriptions/sub_b/rotate-secret`).reply(200, { id: 'sub_b', secret: 'wh_sec_b' });
		nock(BASE).delete(`${API}/webhooks/subscriptions/sub_c`).reply(204);
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: PROD_URL });
		await expect(hooks.checkExists.call(hook.context)).resolves.toBe(true);
		expect(hook.staticData).toMatchObject({ subscriptionId: 'sub_b', secret: 'wh_sec_b' });
	});

	it('checkExists is true when the stored subscription has this URL and these events', async () => {
		nock(BASE).get(`${API}/webhooks/subscriptions/sub_1`).reply(200, subscription({ events: [...EVENTS].reverse() }));
		const hook = fakeHook({
			params: { events: EVENTS },
			webhookUrl: PROD_URL,
			staticData: { subscriptionId: 'sub_1', secret: SECRET },
		});
		await expect(hooks.checkExists.call(hook.context)).resolves.toBe(true);
		expect(hook.staticData).toMatchObject({ subscriptionId: 'sub_1', secret: SECRET });
	});

	it('checkExists on 404 forgets the subscription and returns false', async () => {
		nock(BASE).get(`${API}/webhooks/subscriptions/sub_1`).reply(404, apiError('NOT_FOUND', 'No such subscription'));
		nock(BASE).get(`${API}/webhooks/subscriptions`).reply(200, { data: [], nextCursor: null, hasMore: false });
		const hook = fakeHook({
			params: { events: EVENTS },
			webhookUrl: PROD_URL,
			staticData: { subscriptionId: 'sub_1', secret: SECRET, deliveryIds: ['d1'] },
		});
		await expect(hooks.checkExists.call(hook.context)).resolves.toBe(false);
		expect(hook.staticData).toEqual({});
	});

	it('checkExists with other events (production) replaces it: unsubscribes the old one and returns false', async () => {
		nock(BASE).get(`${API}/webhooks/subscriptions/sub_1`).reply(200, subscription({ events: ['certificate.sent'] }));
		nock(BASE).delete(`${API}/webhooks/subscriptions/sub_1`).reply(204);
		const hook = fakeHook({
			params: { events: EVENTS },
			webhookUrl: PROD_URL,
			staticData: { subscriptionId: 'sub_1', secret: SECRET },
		});
		await expect(hooks.checkExists.call(hook.context)).resolves.toBe(false);
		expect(hook.staticData).toEqual({});
	});

	it('checkExists in a test run leaves the production subscription alone', async () => {
		nock(BASE).get(`${API}/webhooks/subscriptions/sub_1`).reply(200, subscription());
		const hook = fakeHook({
			params: { events: EVENTS },
			webhookUrl: TEST_URL,
			mode: 'manual',
			staticData: { subscriptionId: 'sub_1', secret: SECRET },
		});
		await expect(hooks.checkExists.call(hook.context)).resolves.toBe(false);
		expect(hook.requests.map((r) => r.method)).toEqual(['GET']);
	});

	it('checkExists surfaces other errors as NodeApiError', async () => {
		nock(BASE).get(`${API}/webhooks/subscriptions/sub_1`).reply(401, apiError('EXPIRED_API_KEY', 'Key expired'));
		const hook = fakeHook({
			params: { events: EVENTS },
			webhookUrl: PROD_URL,
			staticData: { subscriptionId: 'sub_1', secret: SECRET },
		});
		const error = await hooks.checkExists.call(hook.context).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toBe('Key expired');
		expect(hook.staticData.subscriptionId).toBe('sub_1');
	});

	it.each([
		['production', PROD_URL, 'trigger'],
		['test', TEST_URL, 'manual'],
	] as const)('create subscribes the %s webhook URL and stores id + secret', async (_label, url, mode) => {
		nock(BASE)
			.post(`${API}/webhooks/subscriptions`, { url, events: EVENTS })
			.reply(201, { id: 'sub_9', url, events: EVENTS, secret: SECRET });
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: url, mode });
		await expect(hooks.create.call(hook.context)).resolves.toBe(true);
		expect(hook.staticData).toEqual({ subscriptionId: 'sub_9', secret: SECRET, webhookUrl: url, deliveryIds: [] });
	});

	it('create retries a 429 after Retry-After (a refused request is safe to repeat) and subscribes once', async () => {
		const { sleep } = jest.requireMock('n8n-workflow') as { sleep: jest.Mock };
		sleep.mockClear();
		nock(BASE)
			.post(`${API}/webhooks/subscriptions`)
			.reply(429, apiError('RATE_LIMITED', 'Too many requests'), { 'Retry-After': '7', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '7' });
		nock(BASE).post(`${API}/webhooks/subscriptions`).reply(201, { id: 'sub_9', url: PROD_URL, events: EVENTS, secret: SECRET });
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: PROD_URL });
		await expect(hooks.create.call(hook.context)).resolves.toBe(true);
		expect(hook.requests).toHaveLength(2);
		// waited at least Retry-After before the second attempt, never less
		const waited = sleep.mock.calls.reduce((sum: number, [ms]: [number]) => sum + ms, 0);
		expect(waited).toBeGreaterThanOrEqual(7000);
		expect(hook.staticData.subscriptionId).toBe('sub_9');
	});

	it('create in a full workspace (20 subscriptions) fails with what to do, and stores nothing', async () => {
		nock(BASE)
			.post(`${API}/webhooks/subscriptions`)
			.reply(403, apiError('PLAN_LIMIT_EXCEEDED', 'A workspace can hold at most 20 webhook subscriptions; delete one first.', { limit: 20 }));
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: TEST_URL, mode: 'manual' });
		const error = await hooks.create.call(hook.context).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toBe('A workspace can hold at most 20 webhook subscriptions; delete one first.');
		expect((error as NodeApiError).description).toMatch(
			/Free one: delete a webhook subscription that nothing uses any more\. In n8n, each active workflow with the Certificate Service Trigger holds one, and one more while the trigger listens for a test event; the Certificate Service Poll Trigger holds none\..*certsvc subscriptions list/,
		);
		expect(hook.staticData.subscriptionId).toBeUndefined();
	});

	it('create reads a secret under another name (signingSecret)', async () => {
		nock(BASE)
			.post(`${API}/webhooks/subscriptions`)
			.reply(201, { data: { id: 'sub_9', url: PROD_URL, events: EVENTS, signingSecret: SECRET } });
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: PROD_URL });
		await hooks.create.call(hook.context);
		expect(hook.staticData.secret).toBe(SECRET);
	});

	it('create without a returned secret removes the subscription again and fails', async () => {
		nock(BASE).post(`${API}/webhooks/subscriptions`).reply(201, { id: 'sub_9', url: PROD_URL, events: EVENTS });
		nock(BASE).delete(`${API}/webhooks/subscriptions/sub_9`).reply(204);
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: PROD_URL });
		await expect(hooks.create.call(hook.context)).rejects.toBeInstanceOf(NodeOperationError);
		expect(hook.staticData).toEqual({});
	});

	it('create refuses a non-https webhook URL before any request, explaining WEBHOOK_URL', async () => {
		const hook = fakeHook({ params: { events: EVENTS }, webhookUrl: 'http://n8n.internal:5678/webhook/abc/webhook' });
		const error = await hooks.create.call(hook.context).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).description).toContain('WEBHOOK_URL');
		expect(hook.requests).toHaveLength(0);
	});

	it('create with no events selected fails before any request', async () => {
		const hook = fakeHook({ params: { events: [] }, webhookUrl: PROD_URL });
		await expect(hooks.create.call(hook.context)).rejects.toBeInstanceOf(NodeOperationError);
		expect(hook.requests).toHaveLength(0);
	});

	it('delete unsubscribes and clears the state', async () => {
		nock(BASE).delete(`${API}/webhooks/subscriptions/sub_1`).reply(204);
		const hook = fakeHook({
			params: { events: EVENTS },
			webhookUrl: PROD_URL,
			staticData: { subscriptionId: 'sub_1', secret: SECRET, webhookUrl: PROD_URL, deliveryIds: ['d'] },
		});
		await expect(hooks.delete.call(hook.context)).resolves.toBe(true);
		expect(hook.staticData).toEqual({});
	});

	it('delete treats 404 as already gone', async () => {
		nock(BASE).delete(`${API}/webhooks/subscriptions/sub_1`).reply(404, apiError('NOT_FOUND', 'gone'));
		const hook = fakeHook({ params: {}, webhookUrl: PROD_URL, staticData: { subscriptionId: 'sub_1', secret: SECRET } });
		await expect(hooks.delete.call(hook.context)).resolves.toBe(true);
		expect(hook.staticData).toEqual({});
	});

	it('delete that fails otherwise returns false, logs, and keeps the state for a later try', async () => {
		nock(BASE).delete(`${API}/webhooks/subscriptions/sub_1`).times(6).reply(503, 'Service Unavailable');
		const hook = fakeHook({ params: {}, webhookUrl: PROD_URL, staticData: { subscriptionId: 'sub_1', secret: SECRET } });
		// a DELETE is safe to repeat, so the core retried the 503 (5 times) before giving up
		await expect(hooks.delete.call(hook.context)).resolves.toBe(false);
		expect(hook.requests).toHaveLength(6);
		expect(hook.staticData.subscriptionId).toBe('sub_1');
		expect(hook.warnings.join('\n')).toContain('sub_1');
	});

	it('delete without a stored subscription does nothing', async () => {
		const hook = fakeHook({ params: {}, webhookUrl: PROD_URL });
		await expect(hooks.delete.call(hook.context)).resolves.toBe(true);
		expect(hook.requests).toHaveLength(0);
	});
});

describe('webhook()', () => {
	const event: WebhookEvent = {
		id: 'whe_1',
		type: 'certificate.issued',
		createdAt: '2026-01-02T03:04:05.000Z',
		data: recipient(1, { batchId: 'batch_1', data: { course: 'Math' } }) as unknown as WebhookEvent['data'],
	};
	const body = JSON.stringify(event);
	let delivery = 0;
	const headersFor = (raw: string, opts: { secret?: string; t?: number; deliveryId?: string } = {}) => ({
		...signPayload(opts.secret ?? SECRET, raw, opts.t),
		'X-Service-Event': 'certificate.issued',
		'X-Service-Delivery': opts.deliveryId ?? `dlv_${++delivery}`,
		'Content-Type': 'application/json',
	});
	const state = (): IDataObject => ({ subscriptionId: 'sub_1', secret: SECRET, deliveryIds: [] });
	const params = { events: ['certificate.issued', 'certificate.viewed'], batch: rl('', 'list') };

	beforeEach(() => resetDeliveryMemory());

	it('a valid delivery emits one item: the flattened event', async () => {
		const raw = Buffer.from(body);
		const { context, response } = fakeWebhook({ params, rawBody: raw, headers: headersFor(body), staticData: state() });
		const result = await trigger.webhook.call(context);
		expect(result.workflowData).toEqual([[{ json: flattenEvent(event) }]]);
		expect(result.workflowData?.[0][0].json).toMatchObject({ id: 'whe_1', recipientId: 'rec_1', batchId: 'batch_1' });
		expect(response.statusCode).toBeUndefined();
	});

	it.each([
		['forged (wrong secret)', () => headersFor(body, { secret: 'wh_sec_attacker' }), 'NO_MATCHING_SIGNATURE'],
		['stale (older than 300 s)', () => headersFor(body, { t: Math.floor(Date.now() / 1000) - 301 }), 'TIMESTAMP_TOO_OLD'],
		['unsigned', () => ({ 'X-Service-Delivery': 'dlv_x' }), 'MISSING_SIGNATURE'],
	])('a %s delivery is answered 401 and starts nothing', async (_label, headers, reason) => {
		const { context, response } = fakeWebhook({ params, rawBody: Buffer.from(body), headers: headers(), staticData: state() });
		const result = await trigger.webhook.call(context);
		expect(result).toEqual({ noWebhookResponse: true });
		expect(response.statusCode).toBe(401);
		expect(response.body).toMatchObject({ error: reason });
	});

	it('a body changed after signing is rejected', async () => {
		const headers = headersFor(body);
		const tampered = body.replace('Person 1', 'Person 2');
		const { context, response } = fakeWebhook({ params, rawBody: Buffer.from(tampered), headers, staticData: state() });
		expect((await trigger.webhook.call(context)).workflowData).toBeUndefined();
		expect(response.statusCode).toBe(401);
	});

	it('without a stored secret every delivery is rejected', async () => {
		const { context, response } = fakeWebhook({ params, rawBody: Buffer.from(body), headers: headersFor(body), staticData: {} });
		await trigger.webhook.call(context);
		expect(response.statusCode).toBe(401);
		expect(response.body).toMatchObject({ error: 'NO_SECRET' });
	});

	it('a duplicate delivery id is answered 200 and starts nothing, even before static data is saved', async () => {
		const headers = headersFor(body, { deliveryId: 'dlv_dup' });
		// n8n reads the workflow afresh for every request and saves static data only when the
		// run ends, so the second request sees the old (empty) static data: a fresh copy here.
		const first = fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: state() });
		const second = fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: state() });
		expect((await trigger.webhook.call(first.context)).workflowData).toHaveLength(1);
		const result = await trigger.webhook.call(second.context);
		expect(result.workflowData).toBeUndefined();
		expect(result.webhookResponse).toEqual({ received: true, duplicate: true });
	});

	it('a delivery that starts a run is not written to static data (n8n would not save it)', async () => {
		const saved = state();
		const first = fakeWebhook({ params, rawBody: Buffer.from(body), headers: headersFor(body), staticData: saved });
		expect((await trigger.webhook.call(first.context)).workflowData).toHaveLength(1);
		expect(saved.deliveryIds).toEqual([]);
	});

	it('its first duplicate is written to static data (n8n saves it: no run), so a restart no longer forgets it', async () => {
		const headers = headersFor(body, { deliveryId: 'dlv_saved' });
		const saved = state();
		await trigger.webhook.call(fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: saved }).context);
		const dup = await trigger.webhook.call(fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: saved }).context);
		expect(dup.webhookResponse).toEqual({ received: true, duplicate: true });
		expect(saved.deliveryIds).toEqual(['dlv_saved']);
		resetDeliveryMemory(); // n8n restarted
		const again = fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: saved });
		expect((await trigger.webhook.call(again.context)).webhookResponse).toEqual({ received: true, duplicate: true });
	});

	it('the same delivery id for another trigger node is not a duplicate', async () => {
		const headers = headersFor(body, { deliveryId: 'dlv_shared' });
		const a = fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: state(), nodeId: 'a' });
		const b = fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: state(), nodeId: 'b' });
		expect((await trigger.webhook.call(a.context)).workflowData).toHaveLength(1);
		expect((await trigger.webhook.call(b.context)).workflowData).toHaveLength(1);
	});

	it('keeps at most 200 delivery ids in static data', async () => {
		const saved = state();
		for (let i = 0; i < 205; i++) {
			const headers = headersFor(body);
			for (let copy = 0; copy < 2; copy++) {
				await trigger.webhook.call(fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: saved }).context);
			}
		}
		expect((saved.deliveryIds as string[]).length).toBe(200);
	});

	it('drops events of another batch (200, no run) and runs for the selected one', async () => {
		const other = fakeWebhook({
			params: { ...params, batch: rl('batch_2') },
			rawBody: Buffer.from(body),
			headers: headersFor(body),
			staticData: state(),
		});
		const result = await trigger.webhook.call(other.context);
		expect(result.workflowData).toBeUndefined();
		expect(result.webhookResponse).toMatchObject({ received: true });
		expect(other.response.statusCode).toBeUndefined();

		const same = fakeWebhook({
			params: { ...params, batch: rl('batch_1', 'id') },
			rawBody: Buffer.from(body),
			headers: headersFor(body),
			staticData: state(),
		});
		expect((await trigger.webhook.call(same.context)).workflowData).toHaveLength(1);
	});

	it('drops event types that were not selected', async () => {
		const { context } = fakeWebhook({
			params: { ...params, events: ['certificate.sent'] },
			rawBody: Buffer.from(body),
			headers: headersFor(body),
			staticData: state(),
		});
		const result = await trigger.webhook.call(context);
		expect(result.workflowData).toBeUndefined();
		expect(result.webhookResponse).toMatchObject({ ignored: 'event certificate.issued is not selected' });
	});

	it('a viewed event carries the viewer', async () => {
		const viewed: WebhookEvent = {
			...event,
			id: 'whe_2',
			type: 'certificate.viewed',
			data: { ...event.data, viewer: { viewedAt: 'x', userAgent: 'ua', referer: '', ip: '1.2.3.4' } },
		};
		const raw = JSON.stringify(viewed);
		const { context } = fakeWebhook({ params, rawBody: raw, headers: headersFor(raw), staticData: state() });
		const result = await trigger.webhook.call(context);
		expect(result.workflowData?.[0][0].json).toMatchObject({ type: 'certificate.viewed', viewer: { ip: '1.2.3.4' } });
	});
});

describe('delivery memory sized for floods', () => {
	beforeEach(() => resetDeliveryMemory());

	it('a bulk issue of 10,000 with send (20,000 deliveries): a late retry of the first one is still a duplicate, the one before them is not', () => {
		const staticData = {};
		const ids = Array.from({ length: MEMORY_DELIVERIES }, (_, i) => `whd_flood_${i}`);
		expect(isDuplicateDelivery('node', staticData, 'whd_before')).toBe(false);
		for (const id of ids) expect(isDuplicateDelivery('node', staticData, id)).toBe(false);
		expect(MEMORY_DELIVERIES).toBe(20_000);
		// The retry of the flood's first delivery (its first answer came after the sender's 10 s)
		expect(isDuplicateDelivery('node', staticData, ids[0])).toBe(true);
		// One id more than the memory holds was evicted: it would run again
		expect(isDuplicateDelivery('node', staticData, 'whd_before')).toBe(false);
	});
});
