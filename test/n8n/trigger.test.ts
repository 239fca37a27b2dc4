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
import { triggerStore } from '../../n8n/nodes/CertificateServiceTrigger/deliveries';
import { MEMORY_DELIVERIES, resetDeliveryMemory } from '../../n8n/nodes/shared/delivery-memory';
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
		const error = await hooks.create.call(hook.context).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toMatch(/created subscription sub_9 but returned no signing secret, so none of its deliveries could be verified\. It was deleted again\./);
		expect(hook.staticData).toEqual({});
		expect(nock.isDone()).toBe(true); // the DELETE was made (by the core, for every host)
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

	it('a valid delivery emits one item: the flattened event; n8n answers it {"received":true}', async () => {
		const raw = Buffer.from(body);
		const { context, response } = fakeWebhook({ params, rawBody: raw, headers: headersFor(body), staticData: state() });
		const result = await trigger.webhook.call(context);
		expect(result.workflowData).toEqual([[{ json: flattenEvent(event) }]]);
		expect(result.workflowData?.[0][0].json).toMatchObject({ id: 'whe_1', recipientId: 'rec_1', batchId: 'batch_1' });
		expect(response.statusCode).toBeUndefined();
		// n8n answers a started execution with the evaluated responseData when it is set, else with
		// webhookResponse; left undefined it is the text "firstEntryJson" (test/e2e/n8n sees the body).
		expect(trigger.description.webhooks?.[0].responseData).toBe('');
		expect(result.webhookResponse).toEqual({ received: true });
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

	/** One attempt: webhook(), then n8n's answer (`status`, or none: n8n has not answered yet). */
	const attempt = async (headers: Record<string, string>, staticData: IDataObject, status?: number, raw = body) => {
		const call = fakeWebhook({ params, rawBody: Buffer.from(raw), headers, staticData });
		const result = await trigger.webhook.call(call.context);
		if (status !== undefined && result.workflowData) call.answer(status);
		return { ...call, result };
	};

	describe('pending, claimed, released', () => {
		it('a copy while the first is pending (n8n has not answered it yet): 503 with Retry-After, starts nothing, writes nothing', async () => {
			const headers = headersFor(body, { deliveryId: 'dlv_pending' });
			const saved = state();
			const first = await attempt(headers, saved);
			expect(first.result.workflowData).toHaveLength(1);
			const copy = await attempt(headers, saved);
			expect(copy.result).toEqual({ noWebhookResponse: true });
			expect(copy.response).toMatchObject({ statusCode: 503, headers: { 'Retry-After': '60' }, body: { error: 'DELIVERY_PENDING' } });
			expect(saved.deliveryIds).toEqual([]);
		});

		it('n8n answers 2xx: claimed; a later copy is a duplicate (200, no run) and only then written to static data', async () => {
			const headers = headersFor(body, { deliveryId: 'dlv_ok' });
			const saved = state();
			await attempt(headers, saved, 200);
			expect(saved.deliveryIds).toEqual([]); // n8n would not save it on the call that runs
			const copy = await attempt(headers, saved, 200);
			expect(copy.result).toEqual({ webhookResponse: { received: true, duplicate: true } });
			expect(saved.deliveryIds).toEqual(['rec_1']); // the claim: the occurrence (issued: the certificate id)
		});

		it('n8n answers 500 (the execution could not be stored): released, so the retry runs, once', async () => {
			const headers = headersFor(body, { deliveryId: 'dlv_failed' });
			const saved = state();
			const first = await attempt(headers, saved, 500);
			expect(first.warnings.join('\n')).toMatch(/n8n answered 500 to delivery dlv_failed; the service will retry it, and the retry runs/);
			expect(saved.deliveryIds).toEqual([]);
			const retry = await attempt(headers, saved, 200);
			expect(retry.result.workflowData).toHaveLength(1);
			expect((await attempt(headers, saved, 200)).result).toEqual({ webhookResponse: { received: true, duplicate: true } });
		});

		it('a copy while pending, then the first fails: the copy ran nothing, the retry after it runs', async () => {
			const headers = headersFor(body, { deliveryId: 'dlv_race' });
			const saved = state();
			const first = await attempt(headers, saved);
			expect((await attempt(headers, saved)).response.statusCode).toBe(503);
			first.answer(500);
			expect((await attempt(headers, saved, 200)).result.workflowData).toHaveLength(1);
		});

		it('the sender has gone (socket closed, no "finish"): the status n8n writes still decides (read at res.end)', async () => {
			const headers = headersFor(body, { deliveryId: 'dlv_gone' });
			const saved = state();
			const first = await attempt(headers, saved);
			// Express's json() on a closed socket still calls end(): n8n wrote 200 after the run was stored.
			first.answer(200);
			expect((await attempt(headers, saved)).result).toEqual({ webhookResponse: { received: true, duplicate: true } });
		});

		it('the first end() decides: a second end() n8n adds on the next tick changes nothing', async () => {
			const headers = headersFor(body, { deliveryId: 'dlv_twice' });
			const saved = state();
			const first = await attempt(headers, saved, 500);
			first.context.getResponseObject().status(200).end();
			expect((await attempt(headers, saved, 200)).result.workflowData).toHaveLength(1);
		});

		it('n8n never answers (the attempt is lost): released after the store\'s 5-minute lease, so a retry runs', async () => {
			jest.useFakeTimers({ now: Date.now() });
			try {
				const headers = headersFor(body, { deliveryId: 'dlv_never' });
				const saved = state();
				await attempt(headers, saved);
				jest.setSystemTime(Date.now() + 299_000);
				expect((await attempt(headersFor(body, { deliveryId: 'dlv_never' }), saved)).response.statusCode).toBe(503);
				jest.setSystemTime(Date.now() + 1_000);
				expect((await attempt(headersFor(body, { deliveryId: 'dlv_never' }), saved, 200)).result.workflowData).toHaveLength(1);
			} finally {
				jest.useRealTimers();
			}
		});
	});

	it('a delivery that starts a run is not written to static data (n8n would not save it)', async () => {
		const saved = state();
		const first = fakeWebhook({ params, rawBody: Buffer.from(body), headers: headersFor(body), staticData: saved });
		expect((await trigger.webhook.call(first.context)).workflowData).toHaveLength(1);
		first.answer(200);
		expect(saved.deliveryIds).toEqual([]);
	});

	it('its first duplicate is written to static data (n8n saves it: no run), so a restart no longer forgets it', async () => {
		const headers = headersFor(body, { deliveryId: 'dlv_saved' });
		const saved = state();
		await attempt(headers, saved, 200);
		const dup = await attempt(headers, saved, 200);
		expect(dup.result.webhookResponse).toEqual({ received: true, duplicate: true });
		expect(saved.deliveryIds).toEqual(['rec_1']);
		resetDeliveryMemory(); // n8n restarted
		expect((await attempt(headers, saved)).result.webhookResponse).toEqual({ received: true, duplicate: true });
	});

	it.each([
		['data is []', []],
		['data is {}', {}],
	])('a signed envelope whose %s is never run: 200 notCertificate, a warning in the log, nothing claimed', async (_what, data) => {
		const raw = JSON.stringify({ ...event, data });
		const headers = headersFor(raw, { deliveryId: 'dlv_sample' });
		const saved = state();
		const call = await attempt(headers, saved, 200, raw);
		expect(call.result.workflowData).toBeUndefined();
		expect(call.result.webhookResponse).toEqual({
			received: true,
			notCertificate: true,
			ignored: Array.isArray(data) ? 'data is an array, not a recipient' : 'data has no recipient id',
		});
		expect(call.response.statusCode).toBeUndefined(); // n8n answers the webhookResponse with 200
		expect(call.warnings.join('\n')).toMatch(/delivery dlv_sample \(certificate\.issued\) is not a certificate event/);
		expect(saved.deliveryIds).toEqual([]);
		// the same envelope again is answered the same, never as a duplicate of something that ran
		expect((await attempt(headers, saved, 200, raw)).result.webhookResponse).toMatchObject({ notCertificate: true });
	});

	it('the same delivery id for another trigger node is not a duplicate', async () => {
		const headers = headersFor(body, { deliveryId: 'dlv_shared' });
		const a = fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: state(), nodeId: 'a' });
		const b = fakeWebhook({ params, rawBody: Buffer.from(body), headers, staticData: state(), nodeId: 'b' });
		expect((await trigger.webhook.call(a.context)).workflowData).toHaveLength(1);
		expect((await trigger.webhook.call(b.context)).workflowData).toHaveLength(1);
	});

	it('keeps at most 200 claims in static data', async () => {
		const saved = state();
		for (let i = 0; i < 205; i++) {
			const raw = JSON.stringify({ ...event, data: { ...event.data, id: `rec_${i}` } });
			const headers = headersFor(raw);
			for (let copy = 0; copy < 2; copy++) await attempt(headers, saved, 200, raw);
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

	it('a bulk issue of 10,000 with send (20,000 deliveries): a late retry of the first one is still a duplicate, the one before them is not', async () => {
		const staticData = {};
		const store = triggerStore('node', staticData);
		const handled = async (id: string) => {
			expect(await store.claim(id)).toBe('taken');
			await store.settle(id, true);
		};
		const ids = Array.from({ length: MEMORY_DELIVERIES }, (_, i) => `whd_flood_${i}`);
		await handled('whd_before');
		for (const id of ids) await handled(id);
		expect(MEMORY_DELIVERIES).toBe(20_000);
		// The retry of the flood's first delivery (its first answer came after the sender's 10 s)
		expect(await store.claim(ids[0])).toBe('done');
		// One id more than the memory holds was evicted: it would run again
		expect(await store.claim('whd_before')).toBe('taken');
	});
});
