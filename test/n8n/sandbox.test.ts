/**
 * The n8n nodes against the local sandbox service: the fake n8n contexts do real HTTP,
 * the sandbox answers as the service would (bulk issue, quota, faults, signed deliveries).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { searchBatches, searchDesigns } from '../../n8n/nodes/shared/listSearch';
import { CertificateServiceTrigger } from '../../n8n/nodes/CertificateServiceTrigger/CertificateServiceTrigger.node';
import { resetDeliveryMemory } from '../../n8n/nodes/shared/delivery-memory';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { startReceiver, type Receiver } from '@certificate-service/sandbox/testing';
import {
	type Credentials,
	type FakeOptions,
	type ParamsFor,
	fakeExecute,
	fakeHook,
	fakeLoadOptions,
	fakeWebhook,
	inputItems,
	issueParams,
	rl,
} from './fake-context';

jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async () => undefined),
}));
const sleepMock = sleep as jest.MockedFunction<typeof sleep>;

let sb: Sandbox;
let credentials: Credentials;
let workspaceId: string;

beforeAll(async () => {
	sb = await createSandbox({ rateLimit: false, timeScale: 0.0001, mailDelayMs: 5, deliveryTimeoutMs: 2000 });
});
beforeEach(() => {
	const ws = sb.controls.createWorkspace({ quota: 1000 });
	workspaceId = ws.workspaceId;
	// The credential's base URL without /api/v1: the nodes add it.
	credentials = { apiKey: ws.apiKey, baseUrl: sb.url };
	sb.controls.clearFaults();
	sleepMock.mockClear();
});
afterAll(() => sb.close());

async function run(params: ParamsFor, options: Partial<FakeOptions> = {}) {
	const fake = fakeExecute({ params, credentials, ...options });
	const [output] = await new CertificateService().execute.call(fake.context);
	return { output, requests: fake.requests };
}

async function runError(params: ParamsFor, options: Partial<FakeOptions> = {}) {
	const fake = fakeExecute({ params, credentials, ...options });
	return await new CertificateService().execute.call(fake.context).then(
		() => {
			throw new Error('expected the node to fail');
		},
		(e: unknown) => e as Error,
	);
}

const json = (items: INodeExecutionData[]) => items.map((i) => i.json);

/** Certificate → Issue into the batch: item i is `P <i>` at p<i>@example.com, or each item is `person`. */
const issueInto = (batchId: string, person?: { name: string; email: string }): ParamsFor => (i) =>
	person ? issueParams(batchId, person.name, person.email) : issueParams(batchId, `P ${i}`, `p${i}@example.com`);

async function newBatch(title = 'Sandbox course'): Promise<string> {
	const { output } = await run({ resource: 'batch', operation: 'create', title, design: rl('design_classic') });
	return output[0].json.id as string;
}

it('runs every operation end to end', async () => {
	// designs, from the node and from the list search
	const designs = await run({ resource: 'design', operation: 'getMany', returnAll: true });
	expect(json(designs.output).map((d) => d.id).sort()).toEqual(['design_classic', 'design_minimal', 'design_modern']);
	const search = await searchDesigns.call(fakeLoadOptions({ credentials }).context, 'mod');
	expect(search.results).toEqual([{ name: 'Modern', value: 'design_modern' }]);

	// batch: create, find in the list search, get
	const { output: created } = await run({
		resource: 'batch',
		operation: 'create',
		title: 'Welding 101',
		design: rl('design_modern', 'list'),
	});
	const batchId = created[0].json.id as string;
	expect(created[0].json).toMatchObject({ title: 'Welding 101', designId: 'design_modern', status: 'active' });
	const found = await searchBatches.call(fakeLoadOptions({ credentials }).context, 'weld');
	expect(found.results).toEqual([{ name: 'Welding 101', value: batchId }]);
	const { output: got } = await run({ resource: 'batch', operation: 'get', batch: rl(batchId) });
	expect(got[0].json.id).toBe(batchId);

	// issue 250 certificates: 3 bulk calls, one output item each, paired with its input
	const issued = await run((i) => issueParams(batchId, `Learner ${i}`, `learner${i}@example.com`, { specifyData: 'json', dataJson: { score: i, passed: true } }), {
		items: inputItems(250),
	});
	// The design check (the batch, its design) and "Skip Emails Already Issued in This Batch" are on
	// by default: those reads, and one of the (empty) batch's certificates, first.
	expect(issued.requests.map((r) => r.url.replace(sb.baseUrl, ''))).toEqual([
		`/batches/${batchId}`,
		'/designs',
		`/batches/${batchId}/recipients?limit=100`,
		...Array(3).fill(`/batches/${batchId}/recipients/bulk`),
	]);
	expect(issued.output).toHaveLength(250);
	issued.output.forEach((item, i) => {
		expect(item.pairedItem).toEqual({ item: i });
		expect(item.json).toMatchObject({ email: `learner${i}@example.com`, data: { score: String(i), passed: 'true' } });
	});
	expect(sb.controls.quota(workspaceId).used).toBe(250);

	// certificates: get many (paged by the service), get, update, send, lookups, delete
	const all = await run({ resource: 'certificate', operation: 'getMany', batch: rl(batchId), returnAll: true });
	expect(all.output).toHaveLength(250);
	const some = await run({ resource: 'certificate', operation: 'getMany', batch: rl(batchId), returnAll: false, limit: 7 });
	expect(some.output).toHaveLength(7);

	const first = issued.output[0].json as IDataObject;
	const recipientId = first.id as string;
	const { output: one } = await run({ resource: 'certificate', operation: 'get', batch: rl(batchId), recipientId });
	expect(one[0].json.certificateId).toBe(first.certificateId);

	const { output: updated } = await run({
		resource: 'certificate',
		operation: 'update',
		batch: rl(batchId),
		recipientId,
		updateFields: { name: 'Learner Zero' },
		specifyData: 'fields',
		dataFields: { field: [{ name: 'score', value: '99' }] },
	});
	expect(updated[0].json).toMatchObject({ id: recipientId });
	const { output: afterUpdate } = await run({ resource: 'certificate', operation: 'get', batch: rl(batchId), recipientId });
	expect(afterUpdate[0].json).toMatchObject({ name: 'Learner Zero', data: { score: '99' } });

	const { output: sent } = await run({ resource: 'certificate', operation: 'send', batch: rl(batchId), recipientId });
	expect(sent[0].json).toMatchObject({ id: recipientId });

	const { output: byId } = await run({
		resource: 'certificate',
		operation: 'getByCertificateId',
		certificateId: first.certificateId,
	});
	expect(byId[0].json.id).toBe(recipientId);
	const { output: byToken } = await run({ resource: 'certificate', operation: 'getByShareToken', certificateLink: first.shareToken });
	expect(byToken[0].json.id).toBe(recipientId);
	// the certificate URL works as well, both here and in the Certificate locator
	const { output: byUrl } = await run({ resource: 'certificate', operation: 'getByShareToken', certificateLink: first.certUrl });
	expect(byUrl[0].json.id).toBe(recipientId);
	const { output: viaUrl } = await run({ resource: 'certificate', operation: 'get', batch: rl(batchId), recipientId: rl(first.certUrl as string, 'url') });
	expect(viaUrl[0].json.id).toBe(recipientId);
	const { output: byEmail } = await run({ resource: 'certificate', operation: 'findByEmail', batch: rl(batchId), email: String(first.email).toUpperCase() });
	expect(byEmail.map((o) => o.json.id)).toEqual([recipientId]);
	expect(byToken[0].json.id).toBe(recipientId);

	const { output: deleted } = await run({ resource: 'certificate', operation: 'delete', batch: rl(batchId), recipientId });
	expect(deleted[0].json).toMatchObject({ id: recipientId });
	const gone = await runError({ resource: 'certificate', operation: 'get', batch: rl(batchId), recipientId });
	expect(gone).toBeInstanceOf(NodeApiError);
	expect((gone as NodeApiError).httpCode).toBe('404');
	expect((gone as NodeApiError).description).toContain('NOT_FOUND');

	// batch: archive → issuing is refused with the service's code → unarchive
	const { output: archived } = await run({ resource: 'batch', operation: 'archive', batch: rl(batchId) });
	expect(archived[0].json).toMatchObject({ id: batchId, status: 'archived' });
	const refused = await runError(issueInto(batchId, { name: 'Late', email: 'late@example.com' }));
	expect(refused).toBeInstanceOf(NodeApiError);
	expect((refused as NodeApiError).description).toContain('BATCH_ARCHIVED');
	const { output: listed } = await run({
		resource: 'batch',
		operation: 'getMany',
		returnAll: true,
		filters: { status: 'archived' },
	});
	expect(json(listed).map((b) => b.id)).toEqual([batchId]);
	const { output: restored } = await run({ resource: 'batch', operation: 'unarchive', batch: rl(batchId) });
	expect(restored[0].json).toMatchObject({ id: batchId, status: 'active' });
}, 30_000);

it('quota exhausted mid-way: with Continue On Fail only the rejected bulk call fails', async () => {
	const ws = sb.controls.createWorkspace({ quota: 150 });
	credentials = { apiKey: ws.apiKey, baseUrl: sb.baseUrl };
	const batchId = await newBatch();
	const { output } = await run(issueInto(batchId), { items: inputItems(250), continueOnFail: true });
	// chunk 1 (100) fits; chunk 2 (100 more) would exceed 150 and is refused whole; chunk 3 (50) fits
	expect(output.slice(0, 100).every((o) => typeof o.json.certificateId === 'string')).toBe(true);
	expect(output.slice(100, 200).every((o) => o.json.code === 'QUOTA_EXCEEDED')).toBe(true);
	expect(output.slice(200).every((o) => typeof o.json.certificateId === 'string')).toBe(true);
	expect(output.map((o) => o.pairedItem)).toEqual(Array.from({ length: 250 }, (_, item) => ({ item })));
	expect(sb.controls.quota(ws.workspaceId).used).toBe(150);
});

it('a bulk call answered with per-item results (207 shape) maps each result back to its item', async () => {
	sb.controls.setBulkResponseShape('results');
	try {
		const batchId = await newBatch();
		const { output } = await run(issueInto(batchId), { items: inputItems(3), continueOnFail: true });
		expect(output.map((o) => o.json.email)).toEqual(['p0@example.com', 'p1@example.com', 'p2@example.com']);
	} finally {
		sb.controls.setBulkResponseShape('data');
	}
});

it('a 429 from the service waits Retry-After (n8n sleep) and retries', async () => {
	const batchId = await newBatch();
	sb.controls.injectFaults({ kind: '429', retryAfterSeconds: 3, match: { method: 'GET', path: '/api/v1/batches' } });
	const { output, requests } = await run({ resource: 'batch', operation: 'get', batch: rl(batchId) });
	expect(output[0].json.id).toBe(batchId);
	expect(requests).toHaveLength(2);
	expect(sleepMock).toHaveBeenCalledTimes(1);
	expect(sleepMock.mock.calls[0][0]).toBeGreaterThanOrEqual(3000);
});

it('a connection reset after the service issued: outcome unknown, and it is not issued twice', async () => {
	const batchId = await newBatch();
	sb.controls.injectFaults({ kind: 'reset-after-commit', match: { method: 'POST', path: `/api/v1/batches/${batchId}/recipients` } });
	const error = await runError(issueInto(batchId, { name: 'Once', email: 'once@example.com' }));
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.message).toContain('Outcome unknown');
	expect(error.message).toContain('once@example.com');
	const { output } = await run({ resource: 'certificate', operation: 'getMany', batch: rl(batchId), returnAll: true });
	expect(json(output).map((r) => r.email)).toEqual(['once@example.com']);
});

describe('trigger', () => {
	const trigger = new CertificateServiceTrigger();
	let receiver: Receiver;

	beforeEach(async () => {
		resetDeliveryMemory();
		receiver = await startReceiver(() => 200);
	});
	afterEach(async () => {
		sb.controls.setDuplicateDeliveries(1);
		await receiver.close();
	});

	it('subscribes, verifies real signed deliveries, drops duplicates, and unsubscribes', async () => {
		const events = ['certificate.issued'];
		const hook = fakeHook({ params: { events }, webhookUrl: receiver.url, credentials });
		const methods = trigger.webhookMethods.default;

		expect(await methods.checkExists.call(hook.context)).toBe(false);
		expect(await methods.create.call(hook.context)).toBe(true);
		expect(hook.staticData.secret).toMatch(/^wh_sec_/);
		expect(sb.controls.subscriptions(workspaceId).map((s) => s.url)).toEqual([receiver.url]);
		expect(await methods.checkExists.call(hook.context)).toBe(true);

		// issue a certificate with the action node; the sandbox delivers the event twice
		sb.controls.setDuplicateDeliveries(2);
		const batchId = await newBatch();
		const { output } = await run(issueInto(batchId, { name: 'Grace Hopper', email: 'grace@example.com' }));
		const received = await receiver.waitFor(2, 5000);

		const results = [];
		for (const delivery of received) {
			const { context, response, answer } = fakeWebhook({
				params: { events, batch: rl(batchId, 'id') },
				rawBody: Buffer.from(delivery.rawBody),
				headers: delivery.headers as Record<string, string>,
				staticData: hook.staticData,
			});
			const result = await trigger.webhook.call(context);
			results.push({ result, response: { ...response } });
			if (result.workflowData) answer(200); // n8n stored and started the run, and answered
		}
		expect(results[0].response.statusCode).toBeUndefined();
		expect(results[0].result.workflowData?.[0][0].json).toMatchObject({
			type: 'certificate.issued',
			recipientId: output[0].json.id,
			batchId,
			email: 'grace@example.com',
			certificateId: output[0].json.certificateId,
		});
		expect(results[1].result).toEqual({ webhookResponse: { received: true, duplicate: true } });

		// a delivery checked with another secret is refused
		const forged = fakeWebhook({
			params: { events },
			rawBody: Buffer.from(received[0].rawBody),
			headers: received[0].headers as Record<string, string>,
			staticData: { secret: 'wh_sec_not_the_right_one' },
		});
		expect(await trigger.webhook.call(forged.context)).toEqual({ noWebhookResponse: true });
		expect(forged.response.statusCode).toBe(401);

		expect(await methods.delete.call(hook.context)).toBe(true);
		expect(sb.controls.subscriptions(workspaceId)).toEqual([]);
		expect(hook.staticData).toEqual({});
		expect(await methods.checkExists.call(hook.context)).toBe(false);
	}, 20_000);
});
