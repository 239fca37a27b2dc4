/**
 * Certificate → Issue with many input items: grouping per batch into bulk calls of at
 * most 100 in input order (through the core's issueMany), per-item results and errors,
 * pairedItem, Continue On Fail, validation before any request (once per recipient), and
 * "Skip Emails Already Issued in This Batch" (on by default; off in the tests of the
 * bulk mechanics below, so they see only the issue calls). The design check's reads (on by
 * default) are answered by nockDesignReads and left out of `requests` here;
 * issue-design-check.test.ts tests the check.
 */
import nock from 'nock';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import * as validation from '../../shared/sdk/src/validation';
import { API, BASE, apiError, nockDesignReads, recipient } from './fixtures';
import { type FakeOptions, type Params, fakeExecute, inputItems, rl } from './fake-context';
import { setupNock } from '../support/nock';

type BulkBody = { recipients: Array<{ name: string; email: string; data: Record<string, string> }>; send?: boolean };

/** Answers every bulk call with one recipient per input, numbered by the email's digits. */
function bulkReply(uri: string, requestBody: nock.Body): nock.ReplyFnResult {
	const body = requestBody as BulkBody;
	const batchId = uri.split('/')[4];
	return [
		201,
		{ data: body.recipients.map((r) => recipient(Number(r.email.replace(/\D/g, '')), { batchId, email: r.email, name: r.name })) },
	];
}

const issueParams =
	(over: (i: number) => Params = () => ({})) =>
	(i: number): Params => ({
		resource: 'certificate',
		operation: 'issue',
		batch: rl('batch_1'),
		name: `Person ${i}`,
		email: `person${i}@example.com`,
		specifyData: 'fields',
		dataFields: { field: [{ name: 'n', value: String(i) }] },
		skipExisting: false,
		...over(i),
	});

/** Runs the node; `requests` leaves out the design check's reads (GET the batch, GET /designs). */
async function run(options: FakeOptions) {
	const fake = fakeExecute(options);
	const output = await new CertificateService().execute.call(fake.context);
	const designRead = (url: string) => /\/batches\/[^/]+$|\/designs$/.test(url.split('?')[0]);
	return { ...fake, requests: fake.requests.filter((r) => !(r.method === 'GET' && designRead(r.url))), output: output[0] };
}

setupNock();

it('250 items for one batch make 3 bulk calls (100, 100, 50) in input order', async () => {
	nockDesignReads();
	nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).times(3).reply(bulkReply);
	const { output, requests } = await run({ items: inputItems(250), params: issueParams() });

	expect(requests).toHaveLength(3);
	const bodies = requests.map((r) => r.body as BulkBody);
	expect(bodies.map((b) => b.recipients.length)).toEqual([100, 100, 50]);
	const emails = bodies.flatMap((b) => b.recipients.map((r) => r.email));
	expect(emails).toEqual(Array.from({ length: 250 }, (_, i) => `person${i}@example.com`));
	expect(bodies[0].recipients[7]).toEqual({ name: 'Person 7', email: 'person7@example.com', data: { n: '7' } });
	expect(bodies.every((b) => b.send === false)).toBe(true);

	expect(output).toHaveLength(250);
	output.forEach((item, i) => {
		expect(item.pairedItem).toEqual({ item: i });
		expect(item.json.email).toBe(`person${i}@example.com`);
	});
});

it('groups per batch and send flag, keeping input order inside each group', async () => {
	nockDesignReads(['batch_A', 'batch_B']);
	nock(BASE).post(/\/recipients\/bulk$/).times(2).reply(bulkReply);
	nock(BASE).post(`${API}/batches/batch_A/recipients`).reply(201, recipient(2, { email: 'person2@example.com' }));
	// items alternate between two batches; items 0 and 4 ask for the email to be sent
	const { output, requests } = await run({
		items: inputItems(6),
		params: issueParams((i) => ({ batch: rl(i % 2 ? 'batch_B' : 'batch_A'), send: i === 4 || i === 0 })),
	});
	const calls = requests
		.filter((r) => r.url.endsWith('/bulk'))
		.map((r) => [r.url.replace(`${BASE}${API}`, ''), (r.body as BulkBody).recipients.map((x) => x.email)]);
	// 0 and 4 (send) go together; 2 alone uses the single-issue endpoint; 1, 3, 5 go to batch_B
	expect(requests).toHaveLength(3);
	expect(calls).toContainEqual(['/batches/batch_A/recipients/bulk', ['person0@example.com', 'person4@example.com']]);
	expect(calls).toContainEqual([
		'/batches/batch_B/recipients/bulk',
		['person1@example.com', 'person3@example.com', 'person5@example.com'],
	]);
	expect(output.map((o) => [o.pairedItem, o.json.email])).toEqual(
		Array.from({ length: 6 }, (_, i) => [{ item: i }, `person${i}@example.com`]),
	);
	// the lone item went to the single-issue endpoint
	const single = requests.find((r) => r.url.endsWith('/batches/batch_A/recipients'));
	expect(single?.body).toMatchObject({ email: 'person2@example.com', send: false });
	expect(requests.filter((r) => r.url.endsWith('/bulk')).map((r) => (r.body as BulkBody).send)).toContain(true);
});

describe('partial failure of a bulk call', () => {
	const partialReply = (_uri: string, requestBody: nock.Body): nock.ReplyFnResult => [
		207,
		{
			results: (requestBody as BulkBody).recipients.map((r, index) =>
				r.email === 'person2@example.com'
					? { index, error: apiError('VALIDATION_ERROR', 'email domain is blocked', { field: 'email' }) }
					: { index, recipient: recipient(Number(r.email.replace(/\D/g, '')), { email: r.email }) },
			),
		},
	];

	it('without Continue On Fail: throws the failed item error (NodeApiError, its itemIndex) and says how many were issued', async () => {
		nockDesignReads();
		nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).reply(partialReply);
		const fake = fakeExecute({ items: inputItems(4), params: issueParams() });
		const error = await new CertificateService().execute.call(fake.context).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		const e = error as NodeApiError;
		expect(e.message).toBe('person2@example.com: email domain is blocked');
		expect(e.context.itemIndex).toBe(2);
		expect(e.description).toContain('Of 4 items, 3 certificates were issued, 0 skipped (already issued), 0 invalid, 1 failed, 0 with an unknown outcome and 0 not sent. The issued ones are not undone.');
		expect(e.description).toContain('Continue On Fail');
	});

	it('with Continue On Fail: the failed item becomes an error item, the others succeed', async () => {
		nockDesignReads();
		nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).reply(partialReply);
		const { output } = await run({ items: inputItems(4), params: issueParams(), continueOnFail: true });
		expect(output.map((o) => o.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(output[2].json).toMatchObject({
			error: 'person2@example.com: email domain is blocked',
			code: 'VALIDATION_ERROR',
			field: 'email',
		});
		expect([0, 1, 3].map((i) => output[i].json.email)).toEqual([
			'person0@example.com',
			'person1@example.com',
			'person3@example.com',
		]);
	});

	it('a rejected whole call fails each of its items, and the next chunk still runs', async () => {
		nockDesignReads();
		nock(BASE)
			.post(`${API}/batches/batch_1/recipients/bulk`)
			.reply(402, apiError('QUOTA_EXCEEDED', 'Plan quota used up'));
		nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).reply(bulkReply);
		const { output } = await run({ items: inputItems(150), params: issueParams(), continueOnFail: true });
		expect(output).toHaveLength(150);
		expect(output.slice(0, 100).every((o) => o.json.code === 'QUOTA_EXCEEDED')).toBe(true);
		expect(output.slice(100).every((o) => typeof o.json.certificateId === 'string')).toBe(true);
	});
});

describe('validation before any request', () => {
	it('without Continue On Fail an invalid item stops the node before anything is issued', async () => {
		const fake = fakeExecute({
			items: inputItems(5),
			params: issueParams((i) => (i === 3 ? { email: 'not-an-email' } : {})),
		});
		const error = await new CertificateService().execute.call(fake.context).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).context.itemIndex).toBe(3);
		expect((error as Error).message).toMatch(/not-an-email/);
		expect(fake.requests).toHaveLength(0);
	});

	it('with Continue On Fail the invalid item is an error item and is never sent', async () => {
		nockDesignReads();
		nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).reply(bulkReply);
		const { output, requests } = await run({
			items: inputItems(4),
			continueOnFail: true,
			params: issueParams((i) =>
				i === 1 ? { specifyData: 'json', dataJson: '{"nested":{"x":1}}' } : {},
			),
		});
		expect((requests[0].body as BulkBody).recipients.map((r) => r.email)).toEqual([
			'person0@example.com',
			'person2@example.com',
			'person3@example.com',
		]);
		expect(output[1]).toEqual({
			json: expect.objectContaining({ code: 'VALIDATION_ERROR', field: 'data.nested' }),
			pairedItem: { item: 1 },
		});
		expect(output.map((o) => o.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
	});
});

it('with Batch Requests off, every item makes its own request', async () => {
	nockDesignReads();
	nock(BASE)
		.post(`${API}/batches/batch_1/recipients`)
		.times(3)
		.reply(201, (_uri, body) => recipient(Number(String((body as { email: string }).email).replace(/\D/g, ''))));
	const { output, requests } = await run({
		items: inputItems(3),
		params: issueParams(() => ({ options: { batchRequests: false } })),
	});
	expect(requests.map((r) => r.url)).toEqual(Array(3).fill(`${BASE}${API}/batches/batch_1/recipients`));
	expect(output.map((o) => o.json.id)).toEqual(['rec_0', 'rec_1', 'rec_2']);
});

describe('Skip Emails Already Issued in This Batch (on by default)', () => {
	it('reads the batch once (100 a page), skips emails already there (any case) and repeats, and marks them skipped', async () => {
		const existing = [3, 7, 150].map((n) => recipient(n, { email: `PERSON${n}@example.com` }));
		const filler = Array.from({ length: 97 }, (_, k) => recipient(1000 + k, { email: `other${k}@example.com` }));
		nockDesignReads();
		nock(BASE).get(`${API}/batches/batch_1/recipients`).query({ limit: 100 }).reply(200, { data: [...existing.slice(0, 2), ...filler, existing[2]].slice(0, 100), nextCursor: 'p2' });
		nock(BASE).get(`${API}/batches/batch_1/recipients`).query({ limit: 100, cursor: 'p2' }).reply(200, { data: [existing[2]], nextCursor: null });
		nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).times(2).reply(bulkReply);
		// 200 items; item 199 repeats item 5's email
		const { output, requests } = await run({
			items: inputItems(200),
			params: (i) => {
				const { skipExisting: _off, ...params } = issueParams()(i);
				return i === 199 ? { ...params, email: 'Person5@Example.com' } : params;
			},
		});
		const gets = requests.filter((r) => r.method === 'GET');
		expect(gets).toHaveLength(2);
		const sent = requests.filter((r) => r.method === 'POST').flatMap((r) => (r.body as BulkBody).recipients.map((x) => x.email));
		expect(sent).toHaveLength(200 - 3 - 1);
		expect(sent).not.toContain('person3@example.com');
		expect(sent).not.toContain('person150@example.com');
		expect(output).toHaveLength(200);
		expect(output.map((o) => o.pairedItem)).toEqual(Array.from({ length: 200 }, (_, item) => ({ item })));
		expect(output.filter((o) => o.json.skipped === true).map((o) => (o.pairedItem as { item: number }).item)).toEqual([3, 7, 150, 199]);
		expect(output[7].json.id).toBe('rec_7');
		expect(output[199].json.email).toBe('person5@example.com');
		expect(output[0].json.skipped).toBe(false);
	});

	it('"Batch Requests" and the skip option apply to the whole run: read once, from the first item', async () => {
		nockDesignReads();
		nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).reply(bulkReply);
		const fake = fakeExecute({ items: inputItems(3), params: issueParams((i) => (i === 2 ? { options: { batchRequests: false } } : {})) });
		const read: string[] = [];
		const getNodeParameter = fake.context.getNodeParameter.bind(fake.context);
		fake.context.getNodeParameter = ((name: string, itemIndex: number, ...rest: unknown[]) => {
			if (name === 'options' || name === 'skipExisting') read.push(`${name}@${itemIndex}`);
			return (getNodeParameter as (...a: unknown[]) => unknown)(name, itemIndex, ...rest);
		}) as typeof fake.context.getNodeParameter;
		const [output] = await new CertificateService().execute.call(fake.context);
		expect(read.sort()).toEqual(['options@0', 'skipExisting@0']);
		expect(output).toHaveLength(3);
		// item 0 has Batch Requests on, so all three go in one bulk call (item 2's "off" is not read)
		expect(fake.requests.filter((r) => r.url.endsWith('/recipients/bulk'))).toHaveLength(1);
	});
});

it('each recipient is validated and normalised once on its way to the wire', async () => {
	nockDesignReads();
	nock(BASE).post(`${API}/batches/batch_1/recipients/bulk`).times(3).reply(bulkReply);
	const validateIssue = jest.spyOn(validation, 'validateIssue');
	const normaliseData = jest.spyOn(validation, 'normaliseData');
	try {
		await run({ items: inputItems(250), params: issueParams() });
		expect(validateIssue).toHaveBeenCalledTimes(250);
		// once per item's variables (validateIssue is given none: they are merged after)
		expect(normaliseData.mock.calls.filter(([value]) => value !== undefined)).toHaveLength(250);
	} finally {
		validateIssue.mockRestore();
		normaliseData.mockRestore();
	}
});
