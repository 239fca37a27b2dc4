/**
 * The Certificate Service Poll Trigger against the sandbox (fake IPollFunctions doing real
 * HTTP; the sandbox on a clock the test steps): the first poll emits nothing and saves the
 * position in static data; each certificate is emitted once across polls and across a restart
 * (the static data through JSON, as n8n saves it); every list order; email events; all active
 * batches; manual mode shows the newest without touching the position; the rows of issue 25
 * (sent/failed when pages share one createdAt; a refused cursor, logged); a position saved by
 * the previous version carries on; bad input fails before any request; an unreadable list fails.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CertificateServicePollTrigger } from '../../n8n/nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node';
import { MANUAL_SAMPLE } from '../../n8n/nodes/CertificateServicePollTrigger/poll';
import { createSandbox, type RecipientOrder, type Sandbox } from '@certificate-service/sandbox';
import { Api } from '@certificate-service/sandbox/testing';
import { type Credentials, type Params, fakePoll, rl } from './fake-context';

let sb: Sandbox;
let credentials: Credentials;
let api: Api;
let now = Date.parse('2026-11-25T10:00:00.000Z');

beforeAll(async () => {
	sb = await createSandbox({ rateLimit: false, mailDelayMs: 3_600_000, clock: () => now });
});
beforeEach(() => {
	const ws = sb.controls.createWorkspace({ quota: 2000 });
	credentials = { apiKey: ws.apiKey, baseUrl: sb.url };
	api = new Api(sb.baseUrl, ws.apiKey);
});
afterEach(() => {
	sb.controls.setRecipientOrder('newest-first');
	sb.controls.setTimestampPrecision('ms');
	sb.controls.setCursorExpiry(false);
});
afterAll(() => sb.close());

const trigger = new CertificateServicePollTrigger();

/** One poll as n8n runs it, a second after the last: the items it emits (null = nothing), the requests it made, what it logged. */
async function poll(params: Params, staticData: IDataObject, mode: 'trigger' | 'manual' = 'trigger') {
	now += 1000;
	const logs: string[] = [];
	const fake = fakePoll({ params, credentials, staticData, mode, logs });
	const out = await trigger.poll.call(fake.context);
	return { items: out ? out[0].map((i) => i.json) : null, requests: fake.requests, logs };
}

async function newBatch(): Promise<string> {
	return (await api.post('/batches', { title: 'Poll', designId: 'design_classic' })).body.id as string;
}
/** Issues one at a time, 10 ms apart. */
async function issue(batchId: string, n: number, opts: { send?: boolean; email?: (i: number) => string } = {}): Promise<string[]> {
	const ids: string[] = [];
	for (let i = 0; i < n; i++) {
		now += 10;
		const email = opts.email?.(i) ?? `p${i}-${Math.random().toString(36).slice(2, 8)}@example.com`;
		ids.push((await api.post(`/batches/${batchId}/recipients`, { name: `P${i}`, email, send: opts.send ?? false })).body.id);
	}
	return ids;
}
/** One bulk call, a second after the last (`tick: 0`: in the same instant): every certificate of it shares one createdAt. */
async function bulk(batchId: string, n: number, opts: { send?: boolean; bounce?: boolean; tick?: number } = {}): Promise<string[]> {
	now += opts.tick ?? 1000;
	const recipients = Array.from({ length: n }, (_, i) => ({ name: `B${i}`, email: `b${now}-${i}@${opts.bounce ? 'bounce.test' : 'example.com'}` }));
	return ((await api.post(`/batches/${batchId}/recipients/bulk`, { recipients, send: opts.send ?? false })).body.data as { id: string }[]).map((r) => r.id);
}
/** The mail provider hands over what is queued (the sandbox runs on the test's clock). */
async function mailSettled(_batchId: string) {
	now += 10;
	sb.controls.settleMail();
}
/** n8n saves static data as JSON with the workflow; a restart reads it back. */
const restart = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData));

it('is a polling trigger with the three events, one batch or all active batches', () => {
	const d = trigger.description;
	expect([d.polling, d.group, d.inputs, d.name]).toEqual([true, ['trigger'], [], 'certificateServicePollTrigger']);
	const event = d.properties.find((p) => p.name === 'event')!;
	expect(event.options!.map((o) => (o as { value: string }).value)).toEqual(['issued', 'sent', 'failed']);
	const watch = d.properties.find((p) => p.name === 'watch')!;
	expect(watch.options!.map((o) => (o as { value: string }).value)).toEqual(['batch', 'allActive']);
	expect(d.properties.find((p) => p.name === 'batch')!.type).toBe('resourceLocator');
	expect(d.webhooks).toBeUndefined();
});

describe.each<RecipientOrder>(['newest-first', 'oldest-first', 'undetectable'])('sandbox lists %s', (order) => {
	beforeEach(() => sb.controls.setRecipientOrder(order));

	it('issued: first poll nothing; 3 issued → 3 once; restart; 2 issued → 2 (not 5); 1 request per poll', async () => {
		const batchId = await newBatch();
		await issue(batchId, 4);
		const params = { event: 'issued', watch: 'batch', batch: rl(batchId) };
		let data: IDataObject = {};
		const first = await poll(params, data);
		expect(first.items).toBeNull();
		expect(data.state).toMatchObject({ v: 2, known: expect.any(Array), floor: expect.any(Number) });
		const three = await issue(batchId, 3);
		const second = await poll(params, data);
		expect(second.items!.map((i) => i.recipientId)).toEqual([...three].reverse());
		expect(second.items![0]).toMatchObject({ id: three[2], type: 'certificate.issued', batchId });
		expect(second.requests).toHaveLength(1);
		expect((await poll(params, data)).items).toBeNull();
		data = restart(data);
		const two = await issue(batchId, 2);
		const afterRestart = await poll(params, data);
		expect(afterRestart.items!.map((i) => i.recipientId)).toEqual([...two].reverse());
		expect(afterRestart.requests).toHaveLength(1);
		expect((await poll(params, restart(data))).items).toBeNull();
	});

	it('sent and failed: by email status, each once, a later send too', async () => {
		const batchId = await newBatch();
		const sentData: IDataObject = {};
		const failedData: IDataObject = {};
		const sent = { event: 'sent', watch: 'batch', batch: rl(batchId) };
		const failed = { event: 'failed', watch: 'batch', batch: rl(batchId) };
		const [a, b, c] = await issue(batchId, 3, { email: (i) => (i === 1 ? `x${i}@bounce.test` : `x${i}@example.com`) });
		expect((await poll(sent, sentData)).items).toBeNull();
		expect((await poll(failed, failedData)).items).toBeNull();
		for (const id of [c, b]) await api.post(`/batches/${batchId}/recipients/${id}/send`);
		await mailSettled(batchId);
		expect((await poll(sent, sentData)).items!.map((i) => [i.recipientId, i.emailStatus])).toEqual([[c, 'sent']]);
		expect((await poll(failed, failedData)).items!.map((i) => [i.recipientId, i.type])).toEqual([[b, 'certificate.failed']]);
		// `a` is older than `c` and sent only now.
		await api.post(`/batches/${batchId}/recipients/${a}/send`);
		await mailSettled(batchId);
		expect((await poll(sent, restart(sentData))).items!.map((i) => i.recipientId)).toEqual([a]);
		expect((await poll(failed, failedData)).items).toBeNull();
	});
});

it('all active batches: one state per batch; a new batch counts from its start; archived ones are left alone', async () => {
	const b1 = await newBatch();
	const b2 = await newBatch();
	await issue(b1, 2);
	const params = { event: 'issued', watch: 'allActive' };
	const data: IDataObject = {};
	expect((await poll(params, data)).items).toBeNull();
	expect(Object.keys(data.states as object).sort()).toEqual([b1, b2].sort());
	const b3 = await newBatch();
	const [x] = await issue(b2, 1);
	const [y] = await issue(b3, 1);
	const next = await poll(params, data);
	expect(next.items!.map((i) => i.recipientId)).toEqual([y, x]);
	expect(next.requests).toHaveLength(4); // the batch list + one page per active batch
	await api.post(`/batches/${b1}/archive`);
	const last = await poll(params, data);
	expect([last.items, last.requests.length]).toEqual([null, 3]);
});

it('changing the event or the batch starts over (a first poll again)', async () => {
	const b1 = await newBatch();
	const b2 = await newBatch();
	await issue(b1, 1);
	await issue(b2, 2);
	const data: IDataObject = {};
	expect((await poll({ event: 'issued', watch: 'batch', batch: rl(b1) }, data)).items).toBeNull();
	expect((await poll({ event: 'issued', watch: 'batch', batch: rl(b2) }, data)).items).toBeNull();
	expect(data.watching).toBe(`issued:${b2}`);
});

it(`manual mode: the newest ${MANUAL_SAMPLE} as sample data; the saved position is not touched`, async () => {
	const batchId = await newBatch();
	const ids = await issue(batchId, 5);
	const data: IDataObject = { watching: 'kept' };
	const { items } = await poll({ event: 'issued', watch: 'batch', batch: rl(batchId) }, data, 'manual');
	expect(items!.map((i) => i.recipientId)).toEqual(ids.slice(-MANUAL_SAMPLE).reverse());
	expect(data).toEqual({ watching: 'kept' });
	const empty = await newBatch();
	expect((await poll({ event: 'issued', watch: 'batch', batch: rl(empty) }, {}, 'manual')).items).toBeNull();
});

it('no batch: an error naming the field, before any request', async () => {
	const fake = fakePoll({ params: { event: 'issued', watch: 'batch', batch: rl('') }, credentials });
	const error = await trigger.poll.call(fake.context).catch((e) => e);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect(error.message).toMatch(/^Invalid "Batch": choose the batch/);
	expect(error.description).toMatch(/"Batch".*Nothing was sent/);
	expect(fake.requests).toHaveLength(0);
	const bad = fakePoll({ params: { event: 'viewed', watch: 'batch', batch: rl('batch_1') }, credentials });
	// The core's check of the poll settings, in the node's error.
	await expect(trigger.poll.call(bad.context)).rejects.toThrow(/event.*must be one of [^;]*; got "viewed"/);
	expect(bad.requests).toHaveLength(0);
});

it('an unreadable list fails the poll (UNEXPECTED_RESPONSE), and the position stays', async () => {
	const batchId = await newBatch();
	await issue(batchId, 1);
	const params = { event: 'issued', watch: 'batch', batch: rl(batchId) };
	const data: IDataObject = {};
	await poll(params, data);
	const before = JSON.stringify(data);
	await issue(batchId, 1);
	sb.controls.setListShape('html_page');
	try {
		const error = await poll(params, data).catch((e) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.description).toMatch(/UNEXPECTED_RESPONSE/);
		expect(JSON.stringify(data)).toBe(before);
	} finally {
		sb.controls.setListShape('default');
	}
	expect((await poll(params, data)).items).toHaveLength(1);
});

it('the API key never appears in an error', async () => {
	const fake = fakePoll({ params: { event: 'issued', watch: 'batch', batch: rl('batch_missing') }, credentials });
	const error = await trigger.poll.call(fake.context).catch((e) => e);
	expect(JSON.stringify({ m: error.message, d: error.description, c: error.context })).not.toContain(credentials.apiKey);
	expect(error.message).toMatch(/not found|NOT_FOUND|No batch/i);
});

describe('the poll rows of issue 25', () => {
	test.each(['sent', 'failed'])(
		'row: %s, when more than one page shares one createdAt (the order cannot be detected): quiet polls emit nothing',
		async (event) => {
			sb.controls.setTimestampPrecision('s');
			const batchId = await newBatch();
			// 150 certificates in one second, two bulk calls: no order can be read from them.
			const ids = [...(await bulk(batchId, 100, { bounce: event === 'failed' })), ...(await bulk(batchId, 50, { bounce: event === 'failed', tick: 0 }))];
			const params = { event, watch: 'batch', batch: rl(batchId) };
			const data: IDataObject = {};
			expect((await poll(params, data)).items).toBeNull();
			for (const id of ids) await api.post(`/batches/${batchId}/recipients/${id}/send`);
			await mailSettled(batchId);
			const sent = await poll(params, data);
			expect(sent.items!.map((i) => i.recipientId).sort()).toEqual([...ids].sort());
			for (let i = 0; i < 3; i++) expect((await poll(params, restart(data))).items).toBeNull();
		},
	);

	test('row: a saved cursor the service no longer accepts (400): the poll reads from the top, logs why, and goes on', async () => {
		sb.controls.setRecipientOrder('oldest-first');
		sb.controls.setCursorExpiry({ afterMs: 30_000 });
		const batchId = await newBatch();
		for (let i = 0; i < 3; i++) await bulk(batchId, 100);
		const params = { event: 'issued', watch: 'batch', batch: rl(batchId) };
		const data: IDataObject = {};
		await poll(params, data);
		for (let i = 0; i < 3; i++) {
			const [fresh] = await issue(batchId, 1);
			now += 60_000;
			const out = await poll(params, data);
			expect(out.items!.map((r) => r.recipientId)).toEqual([fresh]);
			expect(out.logs.join('\n')).toMatch(/Certificate Service Poll Trigger: The service refused a saved list cursor \(400 VALIDATION_ERROR: cursor expired/);
		}
	});
});

test('a damaged saved position fails the poll naming the field, never "nothing new"', async () => {
	const batchId = await newBatch();
	const data: IDataObject = { watching: `issued:${batchId}`, state: { v: 2, known: 'rec_1' } };
	const error = await poll({ event: 'issued', watch: 'batch', batch: rl(batchId) }, data).catch((e) => e);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect(`${error.message} ${error.description}`).toMatch(/state\.known/);
});

test("n8n's durable poll cursor (N8N_POLLER_DURABLE_CURSORS_ENABLED): a staged copy committed with the execution or not at all; each certificate in one committed poll", async () => {
	// n8n 2.41.1 (trigger-execution-context.factory.js): getWorkflowStaticData('node') returns a
	// copy of the stored cursor for the length of one poll; __emit commits that copy in the same
	// transaction as the execution, and a kill before the commit loses both. The node must keep
	// its whole position in that object (no module state, no global static data) for this to hold.
	const batchId = await newBatch();
	await issue(batchId, 2);
	const params = { event: 'issued', watch: 'batch', batch: rl(batchId) };
	let committed: IDataObject = {};
	const stagedPoll = async (commit: boolean) => {
		const staged = restart(committed);
		const out = await poll(params, staged);
		if (commit) committed = staged;
		return out.items?.map((i) => i.recipientId) ?? null;
	};
	expect(await stagedPoll(true)).toBeNull();
	const three = await issue(batchId, 3);
	expect(await stagedPoll(false)).toEqual([...three].reverse()); // killed before the commit: no execution, no position
	expect(await stagedPoll(true)).toEqual([...three].reverse()); // the next poll emits them again, and commits
	expect(await stagedPoll(true)).toBeNull();
	const two = await issue(batchId, 2);
	expect(await stagedPoll(true)).toEqual([...two].reverse());
	expect(await stagedPoll(false)).toBeNull();
	expect(await stagedPoll(true)).toBeNull();
});
