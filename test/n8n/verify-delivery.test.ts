/**
 * Certificate Service → Delivery → Verify, after a Webhook node with Raw Body on: the item's
 * binary "data" holds the body as received, `json.headers` the headers (lower-cased, as n8n's
 * Webhook node gives them). Verified events come out flat and once; rejected ones as chosen.
 */
import { NodeOperationError, type INodeExecutionData } from 'n8n-workflow';

import { signPayload } from '@certificate-service/sdk/core';
import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { resetDeliveryMemory } from '../../n8n/nodes/shared/delivery-memory';
import { claimTiming } from '../../n8n/nodes/shared/recorded-claims';
import { recipient } from './fixtures';
import { deduplicationTable, fakeExecute, type FakeOptions } from './fake-context';

const SECRET = 'wh_sec_verify_op_0123456789';
// Each event is a certificate of its own (whe_2 → rec_2): a certificate event's claim is its occurrence.
const event = (id: string) => ({ id, type: 'certificate.issued', createdAt: new Date().toISOString(), data: recipient(Number(id.replace(/\D/g, '')) || 1) });

/** An item as n8n's Webhook node (v2, Raw Body on) outputs a delivery. */
function webhookItem(id: string, options: { secret?: string; deliveryId?: string; raw?: boolean; body?: string; data?: unknown; envelope?: object } = {}): INodeExecutionData {
	// The signature covers the event as sent; a changed body (options.body) is what it must not cover.
	const sent = JSON.stringify(options.envelope ?? ('data' in options ? { ...event(id), data: options.data } : event(id)));
	const body = options.body ?? sent;
	const signed = signPayload(options.secret ?? SECRET, sent);
	const headers = Object.fromEntries(
		Object.entries({ ...signed, 'X-Service-Delivery': options.deliveryId ?? `whd_${id}`, 'Content-Type': 'application/json' }).map(([k, v]) => [k.toLowerCase(), v]),
	);
	return {
		json: { headers, params: {}, query: {}, body: JSON.parse(body) },
		...(options.raw === false ? {} : { binary: { data: { data: Buffer.from(body).toString('base64'), mimeType: 'application/json' } } }),
	};
}

const params = (options: Record<string, unknown> = {}) => () => ({ resource: 'delivery', operation: 'verify', signingSecret: SECRET, rawBodyProperty: 'data', options });
const run = async (items: INodeExecutionData[], extra: Partial<FakeOptions> = {}) => {
	const fake = fakeExecute({ items, params: params(), ...extra });
	return { out: (await new CertificateService().execute.call(fake.context))[0], requests: fake.requests, hints: fake.hints };
};

beforeEach(() => resetDeliveryMemory());
// A claim recorded in n8n's store waits before it reads again (500 ms in n8n); 20 ms here, longer
// than the fake store's 5 ms between a read and its write.
const confirmMs = claimTiming.confirmMs;
beforeAll(() => (claimTiming.confirmMs = 20));
afterAll(() => (claimTiming.confirmMs = confirmMs));
/** The claims a row of n8n's store holds, without the claims' tokens (`<key>#<uuid>`). */
const claimsIn = (keys: Iterable<string>) => [...keys].filter((k) => !k.includes('#')).sort();

it('outputs each verified delivery as the flat event, with its delivery id, paired with its item; no API call', async () => {
	const { out, requests } = await run([webhookItem('whe_1'), webhookItem('whe_2')]);
	expect(out.map((o) => [o.json.id, o.json.type, o.json.recipientId, o.json.deliveryId, o.pairedItem])).toEqual([
		['whe_1', 'certificate.issued', 'rec_1', 'whd_whe_1', { item: 0 }],
		['whe_2', 'certificate.issued', 'rec_2', 'whd_whe_2', { item: 1 }],
	]);
	expect(requests).toEqual([]);
});

it('drops a copy of a delivery already verified in this process (same X-Service-Delivery), within a run and across runs', async () => {
	const first = await run([webhookItem('whe_1'), webhookItem('whe_1')]);
	expect(first.out).toHaveLength(1);
	const again = await run([webhookItem('whe_1')]);
	expect(again.out).toHaveLength(0);
});

it.each([
	['a wrong secret', webhookItem('whe_1', { secret: 'wh_sec_someone_else' }), 'NO_MATCHING_SIGNATURE'],
	['a changed body', webhookItem('whe_1', { body: JSON.stringify({ ...event('whe_1'), type: 'certificate.sent' }) }), 'NO_MATCHING_SIGNATURE'],
	['no raw body (Raw Body off in the Webhook node)', webhookItem('whe_1', { raw: false }), 'MISSING_BODY'],
])('rejects %s: dropped by default, output with the reason, or an error, as chosen', async (_name, item, reason) => {
	expect((await run([item])).out).toEqual([]);
	const shown = await run([item], { params: params({ onRejected: 'output' }) });
	expect(shown.out).toEqual([{ json: { verified: false, reason, message: expect.any(String) }, pairedItem: { item: 0 } }]);
	if (reason === 'MISSING_BODY') expect(shown.out[0].json.message).toMatch(/turn on Raw Body in the Webhook node/);
	const fake = fakeExecute({ items: [item], params: params({ onRejected: 'error' }) });
	const error = await new CertificateService().execute.call(fake.context).catch((e: unknown) => e);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect((error as NodeOperationError).message).toMatch(new RegExp(`^Delivery rejected \\(${reason}\\)`));
	expect(JSON.stringify(shown.out) + String(error)).not.toContain(SECRET);
});

it("by default (no option added) each claim is also recorded in n8n's deduplication store: a copy another worker (or an execution before a restart) recorded is dropped", async () => {
	const processed = new Set(['rec_1']); // recorded by another worker's execution (the claim: the occurrence)
	const { out } = await run([webhookItem('whe_1'), webhookItem('whe_2')], { processed });
	expect(out.map((o) => o.json.id)).toEqual(['whe_2']);
	expect(claimsIn(processed)).toEqual(['rec_1', 'rec_2']);
	// The same with the option added and on.
	const on = new Set(['rec_3']);
	expect((await run([webhookItem('whe_3'), webhookItem('whe_4')], { params: params({ recordInN8n: true }), processed: on })).out.map((o) => o.json.id)).toEqual(['whe_4']);
});

it("Record Delivery IDs turned off: n8n's store is not read or written; this process's memory alone drops copies", async () => {
	const table = deduplicationTable();
	table.rows.set('wf-test:node-1', ['rec_1']);
	const off = { params: params({ recordInN8n: false }), table };
	expect((await run([webhookItem('whe_1'), webhookItem('whe_1')], off)).out.map((o) => o.json.id)).toEqual(['whe_1']);
	expect(table.calls).toBe(0);
});

/**
 * A CertificateService node in a process of its own (its own memory and its own calls to n8n's
 * store): a worker. n8n-workflow is n8n's, shared (and loaded once).
 */
const n8nWorkflow: unknown = jest.requireActual('n8n-workflow');
function worker(): CertificateService {
	let isolated: typeof import('../../n8n/nodes/CertificateService/CertificateService.node') | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => n8nWorkflow);
		isolated = require('../../n8n/nodes/CertificateService/CertificateService.node');
	});
	return new isolated!.CertificateService();
}
const runOn = async (node: CertificateService, items: INodeExecutionData[], extra: Partial<FakeOptions>) =>
	(await node.execute.call(fakeExecute({ items, params: params(), ...extra }).context))[0];

it("two workers inserting n8n's first row at once: the unique key refuses one, which reads the row again; the delivery is output once", async () => {
	const table = deduplicationTable();
	const [a, b] = [worker(), worker()];
	const outs = await Promise.all([runOn(a, [webhookItem('whe_1')], { table }), runOn(b, [webhookItem('whe_1', { deliveryId: 'whd_r1' })], { table })]);
	expect(outs.map((o) => o.length).sort()).toEqual([0, 1]);
	expect(claimsIn(table.rows.get('wf-test:node-1')!)).toEqual(['rec_1']);
});

it("two workers claiming one occurrence at once, once n8n's row exists (each reads it, then writes it back whole): the claim that reads again after the wait finds whose write stands; output once", async () => {
	for (const order of [0, 1]) {
		const table = deduplicationTable(10);
		const [a, b] = [worker(), worker()];
		await runOn(a, [webhookItem('whe_9')], { table }); // the row exists
		const [first, second] = order ? [b, a] : [a, b];
		const outs = await Promise.all([runOn(first, [webhookItem('whe_1')], { table }), runOn(second, [webhookItem('whe_1', { deliveryId: 'whd_r1' })], { table })]);
		expect(outs.map((o) => o.length).sort()).toEqual([0, 1]);
	}
});

it("executions at once in one worker make one call to n8n's store at a time, so no write drops another's claim; another worker then drops copies of all of them", async () => {
	const table = deduplicationTable();
	const a = worker();
	await runOn(a, [webhookItem('whe_9')], { table }); // the row exists: every later call reads, then writes it whole
	const outs = await Promise.all(['whe_1', 'whe_2', 'whe_3'].map((id) => runOn(a, [webhookItem(id)], { table })));
	expect(outs.map((o) => o.length)).toEqual([1, 1, 1]);
	expect(claimsIn(table.rows.get('wf-test:node-1')!)).toEqual(['rec_1', 'rec_2', 'rec_3', 'rec_9']);
	expect(await runOn(worker(), ['whe_9', 'whe_1', 'whe_2', 'whe_3'].map((id) => webhookItem(id, { deliveryId: `whd_copy_${id}` })), { table })).toEqual([]);
});

it("when n8n's store fails otherwise (a database error), the delivery is still output and the failure logged; a later copy is dropped by this process's memory", async () => {
	const logs: string[] = [];
	const failing = { processedFails: 'Connection terminated unexpectedly', logs };
	expect((await run([webhookItem('whe_1')], failing)).out.map((o) => o.json.id)).toEqual(['whe_1']);
	expect(logs).toEqual([expect.stringMatching(/^Certificate Service Verify: could not record rec_1 in n8n's deduplication store; it runs/)]);
	expect((await run([webhookItem('whe_1')], failing)).out).toEqual([]);
});

it('a second bounce of a certificate after a re-send (same emailSentAt, a later createdAt) is output; copies of each are not', async () => {
	const table = deduplicationTable(1);
	const data = { ...recipient(7), emailStatus: 'failed', emailSentAt: '2026-11-20T10:00:00.000Z', error: 'Mailbox unavailable' };
	const bounce = (id: string, createdAt: string) => ({ id, type: 'certificate.failed', createdAt, data });
	const first = webhookItem('whe_f1', { envelope: bounce('whe_f1', '2026-11-20T10:00:05.000Z'), deliveryId: 'whd_f1' });
	const second = webhookItem('whe_f2', { envelope: bounce('whe_f2', '2026-11-21T09:00:05.000Z'), deliveryId: 'whd_f2' });
	expect((await run([first], { table })).out.map((o) => o.json.id)).toEqual(['whe_f1']);
	expect((await run([first], { table })).out).toEqual([]);
	expect((await run([second, second], { table })).out.map((o) => o.json.id)).toEqual(['whe_f2']);
	expect((await run([first, second], { table })).out).toEqual([]);
});

it.each([
	['data is []', []],
	['data is {}', {}],
])('a signed envelope whose %s is never output as a certificate event: a warning hint in the output pane; the next item still comes out', async (_what, data) => {
	const { out, hints } = await run([webhookItem('whe_t', { data, deliveryId: 'whd_test' }), webhookItem('whe_2')]);
	expect(out.map((o) => o.json.id)).toEqual(['whe_2']);
	expect(hints).toEqual([
		{
			type: 'warning',
			location: 'outputPane',
			message: `1 signed delivery is not a certificate event and was not output (the service's test delivery may look like this): whd_test (certificate.issued: ${Array.isArray(data) ? 'data is an array, not a recipient' : 'data has no recipient id'})`,
		},
	]);
	// Nothing was claimed for it: it is answered the same way again, never as a duplicate.
	expect((await run([webhookItem('whe_t', { data, deliveryId: 'whd_test' })])).hints).toHaveLength(1);
});

