/**
 * Certificate Service → Delivery → Verify, after a Webhook node with Raw Body on: the item's
 * binary "data" holds the body as received, `json.headers` the headers (lower-cased, as n8n's
 * Webhook node gives them). Verified events come out flat and once; rejected ones as chosen.
 */
import { NodeOperationError, type INodeExecutionData } from 'n8n-workflow';

import { signPayload } from '@certificate-service/sdk/core';
import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { resetDeliveryMemory } from '../../n8n/nodes/shared/delivery-memory';
import { recipient } from './fixtures';
import { fakeExecute, type FakeOptions } from './fake-context';

const SECRET = 'wh_sec_verify_op_0123456789';
// Each event is a certificate of its own (whe_2 → rec_2): a certificate event's claim is its occurrence.
const event = (id: string) => ({ id, type: 'certificate.issued', createdAt: new Date().toISOString(), data: recipient(Number(id.replace(/\D/g, '')) || 1) });

/** An item as n8n's Webhook node (v2, Raw Body on) outputs a delivery. */
function webhookItem(id: string, options: { secret?: string; deliveryId?: string; raw?: boolean; body?: string; data?: unknown } = {}): INodeExecutionData {
	// The signature covers the event as sent; a changed body (options.body) is what it must not cover.
	const sent = JSON.stringify('data' in options ? { ...event(id), data: options.data } : event(id));
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

it("with Record Delivery IDs (n8n's deduplication store): a copy another process (or a restart) already recorded is dropped", async () => {
	const processed = new Set(['rec_1']); // recorded by another worker's execution (the claim: the occurrence)
	const { out } = await run([webhookItem('whe_1'), webhookItem('whe_2')], { params: params({ recordInN8n: true }), processed });
	expect(out.map((o) => o.json.id)).toEqual(['whe_2']);
	expect([...processed].sort()).toEqual(['rec_1', 'rec_2']);
});

it("with Record Delivery IDs: when n8n's store fails (two workers inserting its first row at once), the delivery is still output, and a later copy is dropped by this process's memory", async () => {
	const failing = { params: params({ recordInN8n: true }), processedFails: 'duplicate key value violates unique constraint "PK_processed_data"' };
	expect((await run([webhookItem('whe_1')], failing)).out.map((o) => o.json.id)).toEqual(['whe_1']);
	expect((await run([webhookItem('whe_1')], failing)).out).toEqual([]);
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

