/**
 * Every operation of the Certificate Service node, run through a fake IExecuteFunctions
 * whose httpRequestWithAuthentication does real HTTP, answered by nock.
 */
import nock from 'nock';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { searchBatches, searchDesigns, searchRecipients } from '../../n8n/nodes/shared/listSearch';
import { shareTokenFrom } from '@certificate-service/sdk/core';
import { SIMPLE_FIELDS } from '../../n8n/nodes/CertificateService/actions/certificate/recipient';
import { API, BASE, apiError, batch, nockDesignReads, recipient } from './fixtures';
import { type FakeOptions, type Params, fakeExecute, issueParams, fakeLoadOptions, inputItems, rl, TEST_CREDENTIALS } from './fake-context';
import { setupNock } from '../support/nock';

jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async () => undefined),
}));
const sleepMock = sleep as jest.MockedFunction<typeof sleep>;

async function run(options: FakeOptions) {
	const fake = fakeExecute(options);
	const output = await new CertificateService().execute.call(fake.context);
	return { ...fake, output: output[0] };
}

/** Runs and returns the rejection (fails the test if it resolves). */
async function runError(options: FakeOptions) {
	const fake = fakeExecute(options);
	const error = await new CertificateService().execute.call(fake.context).then(
		() => {
			throw new Error('expected the node to fail');
		},
		(e: unknown) => e,
	);
	return { ...fake, error };
}

const api = () => nock(BASE).matchHeader('authorization', `Bearer ${TEST_CREDENTIALS.apiKey}`);

/** Certificate → Issue of Ada into batch_1, skip-existing off, with `more` parameters. */
const issueAda = (more: Params = {}): Params => issueParams('batch_1', 'Ada', 'ada@example.com', { skipExisting: false, ...more });

setupNock();
afterEach(() => sleepMock.mockClear());

describe('batch', () => {
	it('create sends title and designId and returns the batch', async () => {
		const scope = api()
			.post(`${API}/batches`, { title: 'Spring', designId: 'design_modern' })
			.reply(201, { data: batch('batch_9', { title: 'Spring', designId: 'design_modern' }) });
		const { output } = await run({
			params: { resource: 'batch', operation: 'create', title: 'Spring', design: rl('design_modern', 'list') },
		});
		expect(output).toEqual([{ json: batch('batch_9', { title: 'Spring', designId: 'design_modern' }), pairedItem: { item: 0 } }]);
		scope.done();
	});

	it('get reads the batch id from the resource locator, once per input item', async () => {
		api().get(`${API}/batches/batch_1`).reply(200, batch('batch_1'));
		api().get(`${API}/batches/batch_2`).reply(200, batch('batch_2'));
		const { output } = await run({
			items: inputItems(2),
			params: (i) => ({ resource: 'batch', operation: 'get', batch: rl(`batch_${i + 1}`) }),
		});
		expect(output.map((o) => [o.json.id, o.pairedItem])).toEqual([
			['batch_1', { item: 0 }],
			['batch_2', { item: 1 }],
		]);
	});

	it('get many follows the cursor for Return All and sends the status filter', async () => {
		api()
			.get(`${API}/batches`)
			.query({ limit: '100', status: 'archived' })
			.reply(200, { data: [batch('b1'), batch('b2')], nextCursor: 'c2' });
		api()
			.get(`${API}/batches`)
			.query({ limit: '100', status: 'archived', cursor: 'c2' })
			.reply(200, { data: [batch('b3')], nextCursor: null });
		const { output } = await run({
			params: { resource: 'batch', operation: 'getMany', returnAll: true, filters: { status: 'archived' } },
		});
		expect(output.map((o) => o.json.id)).toEqual(['b1', 'b2', 'b3']);
		expect(output.every((o) => (o.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('get many with a limit asks for no more than needed and stops paging', async () => {
		api()
			.get(`${API}/batches`)
			.query({ limit: '2' })
			.reply(200, { data: [batch('b1'), batch('b2')], nextCursor: 'c2' });
		const { output, requests } = await run({
			params: { resource: 'batch', operation: 'getMany', returnAll: false, limit: 2 },
		});
		expect(output.map((o) => o.json.id)).toEqual(['b1', 'b2']);
		expect(requests).toHaveLength(1);
	});

	it.each([
		['archive', 'archived'],
		['unarchive', 'active'],
	])('%s posts to the action endpoint', async (operation, status) => {
		api().post(`${API}/batches/batch_1/${operation}`).reply(200, batch('batch_1', { status }));
		const { output, requests } = await run({ params: { resource: 'batch', operation, batch: rl('batch_1') } });
		expect(requests[0].method).toBe('POST');
		expect(output[0].json).toMatchObject({ id: 'batch_1', status });
	});

	it('archive with an empty body still returns the batch id and new status', async () => {
		api().post(`${API}/batches/batch_1/archive`).reply(204);
		const { output } = await run({ params: { resource: 'batch', operation: 'archive', batch: rl('batch_1') } });
		expect(output[0].json).toEqual({ id: 'batch_1', status: 'archived' });
	});
});

describe('design', () => {
	it('get many lists designs up to the limit', async () => {
		api()
			.get(`${API}/designs`)
			.reply(200, { data: [{ id: 'd1', name: 'Classic' }, { id: 'd2', name: 'Modern' }, { id: 'd3', name: 'Minimal' }] });
		const { output } = await run({ params: { resource: 'design', operation: 'getMany', returnAll: false, limit: 2 } });
		expect(output.map((o) => o.json.id)).toEqual(['d1', 'd2']);
	});
});

describe('certificate', () => {
	it('issue (one item) reads the batch once (Skip ... Already Issued is on by default), then uses the single-issue endpoint', async () => {
		nockDesignReads();
		api().get(`${API}/batches/batch_1/recipients`).query({ limit: 100 }).reply(200, { data: [recipient(9, { email: 'grace@example.com' })] });
		api()
			.post(`${API}/batches/batch_1/recipients`, {
				name: 'Ada Lovelace',
				email: 'ada@example.com',
				data: { course: 'Math', hours: '12' },
				send: true,
			})
			.reply(201, recipient(1, { name: 'Ada Lovelace' }));
		const { output } = await run({
			params: {
				resource: 'certificate',
				operation: 'issue',
				batch: rl('batch_1', 'list'),
				name: 'Ada Lovelace',
				email: 'ada@example.com',
				specifyData: 'fields',
				dataFields: { field: [{ name: 'course', value: 'Math' }, { name: 'hours', value: 12 }] },
				send: true,
			},
		});
		// Simplify is on by default: the ten fields, plus whether the item was skipped
		const full = recipient(1, { name: 'Ada Lovelace' }) as Record<string, unknown>;
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(Object.keys(output[0].json).sort()).toEqual([...SIMPLE_FIELDS, 'skipped'].sort());
		for (const key of SIMPLE_FIELDS) expect(output[0].json[key]).toEqual(full[key]);
		expect(output[0].json.skipped).toBe(false);
	});

	it('issue with Simplify off returns the whole certificate, skipped ones included', async () => {
		nockDesignReads();
		api()
			.get(`${API}/batches/batch_1/recipients`)
			.query({ limit: 100 })
			.reply(200, { data: [recipient(9, { email: 'grace@example.com' })] });
		api().post(`${API}/batches/batch_1/recipients`).reply(201, recipient(1, { name: 'Ada Lovelace' }));
		const { output } = await run({
			items: inputItems(2),
			params: (i) => ({
				resource: 'certificate',
				operation: 'issue',
				batch: rl('batch_1'),
				name: ['Ada Lovelace', 'Grace'][i],
				email: ['ada@example.com', 'GRACE@example.com'][i],
				simplify: false,
				options: { batchRequests: false },
			}),
		});
		expect(output.map((o) => o.json)).toEqual([
			{ ...recipient(1, { name: 'Ada Lovelace' }), skipped: false },
			{ ...recipient(9, { email: 'grace@example.com' }), skipped: true },
		]);
	});

	it('issue accepts the data as a JSON object', async () => {
		nockDesignReads();
		api()
			.post(`${API}/batches/batch_1/recipients`, (b) => JSON.stringify(b.data) === JSON.stringify({ grade: 'A', passed: 'true' }))
			.reply(201, recipient(1));
		await run({ params: issueAda({ specifyData: 'json', dataJson: '{"grade":"A","passed":true}' }) });
	});

	it('get reads one recipient and, with Simplify on (the default), returns the ten fields', async () => {
		api().get(`${API}/batches/batch_1/recipients/rec_7`).reply(200, { recipient: recipient(7) });
		const { output } = await run({
			params: { resource: 'certificate', operation: 'get', batch: rl('batch_1'), recipientId: rl('rec_7') },
		});
		const full = recipient(7) as Record<string, unknown>;
		expect(Object.keys(output[0].json).sort()).toEqual([...SIMPLE_FIELDS].sort());
		expect(SIMPLE_FIELDS).toHaveLength(10);
		for (const key of SIMPLE_FIELDS) expect(output[0].json[key]).toEqual(full[key]);
	});

	it('get with Simplify off returns the whole recipient', async () => {
		api().get(`${API}/batches/batch_1/recipients/rec_7`).reply(200, { recipient: recipient(7) });
		const { output } = await run({
			params: { resource: 'certificate', operation: 'get', batch: rl('batch_1'), recipientId: 'rec_7', simplify: false },
		});
		expect(output[0].json).toEqual(recipient(7));
	});

	it('the Certificate locator By Certificate URL resolves the share token to the recipient ID', async () => {
		api().get(`${API}/certificates/by-token/tok7`).reply(200, recipient(7));
		api().post(`${API}/batches/batch_1/recipients/rec_7/send`).reply(202, { emailStatus: 'queued' });
		const { output, requests } = await run({
			params: {
				resource: 'certificate',
				operation: 'send',
				batch: rl('batch_1'),
				recipientId: rl(`${BASE}/v/tok7`, 'url'),
			},
		});
		expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
			`GET ${BASE}${API}/certificates/by-token/tok7`,
			`POST ${BASE}${API}/batches/batch_1/recipients/rec_7/send`,
		]);
		expect(output[0].json).toMatchObject({ id: 'rec_7', emailStatus: 'queued' });
	});

	it('a certificate URL of another batch fails clearly instead of acting on the wrong certificate', async () => {
		api().get(`${API}/certificates/by-token/tok7`).reply(200, recipient(7, { batchId: 'batch_2' }));
		const { error, requests } = await runError({
			params: {
				resource: 'certificate',
				operation: 'delete',
				batch: rl('batch_1'),
				recipientId: rl(`${BASE}/v/tok7`, 'url'),
			},
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toMatch(/recipientId.*batch_2.*batch_1/);
		expect(requests).toHaveLength(1); // the lookup only; nothing deleted
	});

	it('get many sends the emailStatus filter and the limit', async () => {
		api()
			.get(`${API}/batches/batch_1/recipients`)
			.query({ limit: '3', emailStatus: 'sent' })
			.reply(200, { data: [recipient(1), recipient(2), recipient(3)], nextCursor: 'next' });
		const { output } = await run({
			params: {
				resource: 'certificate',
				operation: 'getMany',
				batch: rl('batch_1'),
				returnAll: false,
				limit: 3,
				filters: { emailStatus: 'sent' },
			},
		});
		expect(output).toHaveLength(3);
	});

	it('update sends only the fields that change', async () => {
		api()
			.patch(`${API}/batches/batch_1/recipients/rec_1`, { email: 'new@example.com', data: { course: 'Physics' } })
			.reply(200, recipient(1, { email: 'new@example.com', data: { course: 'Physics' } }));
		const { output } = await run({
			params: {
				resource: 'certificate',
				operation: 'update',
				batch: rl('batch_1'),
				recipientId: 'rec_1',
				updateFields: { email: 'new@example.com' },
				specifyData: 'fields',
				dataFields: { field: [{ name: 'course', value: 'Physics' }] },
			},
		});
		expect(output[0].json).toMatchObject({ email: 'new@example.com' });
	});

	it('update with nothing to change fails before any request', async () => {
		const { error, requests } = await runError({
			params: {
				resource: 'certificate',
				operation: 'update',
				batch: rl('batch_1'),
				recipientId: 'rec_1',
				updateFields: {},
				specifyData: 'keep',
			},
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toMatch(/at least one of name, email or data/);
		expect(requests).toHaveLength(0);
	});

	it('delete and send return what the service said, with the ids', async () => {
		api().delete(`${API}/batches/batch_1/recipients/rec_1`).reply(204);
		api().post(`${API}/batches/batch_1/recipients/rec_2/send`).reply(202, { emailStatus: 'queued' });
		const deleted = await run({
			params: { resource: 'certificate', operation: 'delete', batch: rl('batch_1'), recipientId: 'rec_1' },
		});
		expect(deleted.output[0].json).toEqual({ id: 'rec_1', batchId: 'batch_1', deleted: true });
		const sent = await run({
			params: { resource: 'certificate', operation: 'send', batch: rl('batch_1'), recipientId: 'rec_2' },
		});
		expect(sent.output[0].json).toEqual({ id: 'rec_2', batchId: 'batch_1', queued: true, emailStatus: 'queued' });
	});
});

describe('certificate lookups (the former Lookup resource)', () => {
	it('get by certificate ID and get by share token or URL (bare token or certUrl)', async () => {
		api().get(`${API}/certificates/CERT-2026-0001-0001`).reply(200, { certificate: recipient(1) });
		api().get(`${API}/certificates/by-token/tok2`).times(2).reply(200, recipient(2));
		const byId = await run({
			params: { resource: 'certificate', operation: 'getByCertificateId', certificateId: 'CERT-2026-0001-0001' },
		});
		const byToken = await run({ params: { resource: 'certificate', operation: 'getByShareToken', certificateLink: 'tok2' } });
		const byUrl = await run({
			params: { resource: 'certificate', operation: 'getByShareToken', certificateLink: `${BASE}/v/tok2/`, simplify: false },
		});
		expect(byId.output[0].json.id).toBe('rec_1');
		expect(Object.keys(byId.output[0].json)).toHaveLength(10);
		expect(byToken.output[0].json.id).toBe('rec_2');
		expect(byUrl.output[0].json).toEqual(recipient(2));
	});

	it('shareTokenFrom takes a bare token or the last segment after /v/, and names the field otherwise', () => {
		expect(shareTokenFrom(' 3kP9xQ2mVb ', 'shareToken')).toBe('3kP9xQ2mVb');
		expect(shareTokenFrom('https://certs.example.com/v/3kP9xQ2mVb', 'shareToken')).toBe('3kP9xQ2mVb');
		expect(shareTokenFrom('https://certs.example.com/app/v/tok%2D1?ref=mail#top', 'shareToken')).toBe('tok-1');
		expect(() => shareTokenFrom('https://certs.example.com/certificates/3kP9', 'shareToken')).toThrow(/"shareToken".*\/v\//);
		expect(() => shareTokenFrom('a/b', 'recipientId')).toThrow(/"recipientId"/);
		expect(() => shareTokenFrom('', 'shareToken')).toThrow(/"shareToken"/);
	});

	it('a bad share token URL fails before any request', async () => {
		const { error, requests } = await runError({
			params: { resource: 'certificate', operation: 'getByShareToken', shareToken: 'https://certs.example.com/x/y' },
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(requests).toHaveLength(0);
	});
});

describe('certificate: find by email', () => {
	const page1 = [recipient(1, { email: 'Ada@Example.com' }), recipient(2)];
	const page2 = [recipient(3, { email: 'ada@example.com' })];

	it('returns every certificate of the batch issued to the email, case-insensitive, reading the batch once', async () => {
		api().get(`${API}/batches/batch_1/recipients`).query({ limit: '100' }).reply(200, { data: page1, nextCursor: 'c2' });
		api().get(`${API}/batches/batch_1/recipients`).query({ limit: '100', cursor: 'c2' }).reply(200, { data: page2, nextCursor: null });
		const { output, requests } = await run({
			items: inputItems(3),
			params: (i) => ({
				resource: 'certificate',
				operation: 'findByEmail',
				batch: rl('batch_1'),
				email: ['ADA@example.com', 'nobody@example.com', 'person2@example.com'][i],
			}),
		});
		expect(requests).toHaveLength(2); // two pages, for three items
		expect(output.map((o) => [o.json.id, o.pairedItem])).toEqual([
			['rec_1', { item: 0 }],
			['rec_3', { item: 0 }],
			['rec_2', { item: 2 }],
		]);
		expect(Object.keys(output[0].json)).toHaveLength(10);
	});

	it('no match is an empty output, not an error (so "Always Output Data" can carry on)', async () => {
		api().get(`${API}/batches/batch_1/recipients`).query({ limit: '100' }).reply(200, { data: page1, nextCursor: null });
		const { output } = await run({
			params: { resource: 'certificate', operation: 'findByEmail', batch: rl('batch_1'), email: 'none@example.com' },
		});
		expect(output).toEqual([]);
	});

	it('a bad email fails before any request, naming the field', async () => {
		const { error, requests } = await runError({
			params: { resource: 'certificate', operation: 'findByEmail', batch: rl('batch_1'), email: 'not-an-email' },
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toMatch(/"email"/);
		expect(requests).toHaveLength(0);
	});
});

describe('resource locator list search', () => {
	it('pages batches with the service cursor as paginationToken, all statuses, archived ones marked', async () => {
		api()
			.get(`${API}/batches`)
			.query({ limit: '100', status: 'all' })
			.reply(200, { data: [batch('b1', { title: 'Welding' }), batch('b2', { title: 'Old', status: 'archived' })], nextCursor: 'c2' });
		api()
			.get(`${API}/batches`)
			.query({ limit: '100', status: 'all', cursor: 'c2' })
			.reply(200, { data: [batch('b3', { title: '' })], nextCursor: null });
		const { context } = fakeLoadOptions();
		const first = await searchBatches.call(context);
		expect(first).toEqual({
			results: [
				{ name: 'Welding', value: 'b1' },
				{ name: 'Old (archived)', value: 'b2' },
			],
			paginationToken: 'c2',
		});
		const second = await searchBatches.call(context, undefined, first.paginationToken);
		expect(second).toEqual({ results: [{ name: 'b3', value: 'b3' }], paginationToken: undefined });
	});

	it('filters a page by name or ID and keeps the token so more pages can be searched', async () => {
		api()
			.get(`${API}/designs`)
			.reply(200, { items: [{ id: 'd_classic', name: 'Classic' }, { id: 'd_modern', name: 'Modern' }], next_cursor: 'n2' });
		const result = await searchDesigns.call(fakeLoadOptions().context, 'CLASS');
		expect(result).toEqual({ results: [{ name: 'Classic', value: 'd_classic' }], paginationToken: 'n2' });
	});

	it('lists the chosen batch\'s certificates as "name <email>", searchable by name and email, paged', async () => {
		api()
			.get(`${API}/batches/batch_1/recipients`)
			.query({ limit: '100' })
			.reply(200, { data: [recipient(1, { name: 'Ada Lovelace', email: 'ada@example.com' }), recipient(2, { name: 'Alan Turing', email: 'alan@maths.org' })], nextCursor: 'c2' });
		api()
			.get(`${API}/batches/batch_1/recipients`)
			.query({ limit: '100', cursor: 'c2' })
			.reply(200, { data: [recipient(3, { name: 'Grace Hopper', email: 'grace@maths.org' })], nextCursor: null });
		const { context } = fakeLoadOptions({ params: { batch: rl('batch_1', 'list') } });
		const first = await searchRecipients.call(context, 'MATHS');
		expect(first).toEqual({ results: [{ name: 'Alan Turing <alan@maths.org>', value: 'rec_2' }], paginationToken: 'c2' });
		const second = await searchRecipients.call(context, 'grace', first.paginationToken);
		expect(second).toEqual({ results: [{ name: 'Grace Hopper <grace@maths.org>', value: 'rec_3' }], paginationToken: undefined });
	});

	it('lists no certificates (and asks nothing) until a batch is chosen', async () => {
		const { context, requests } = fakeLoadOptions({ params: { batch: rl('', 'list') } });
		expect(await searchRecipients.call(context)).toEqual({ results: [] });
		expect(requests).toHaveLength(0);
	});

	it('reports service errors as NodeApiError', async () => {
		api().get(`${API}/designs`).reply(401, apiError('INVALID_API_KEY', 'Unknown key'));
		await expect(searchDesigns.call(fakeLoadOptions().context)).rejects.toBeInstanceOf(NodeApiError);
	});
});

describe('errors', () => {
	it('an API error becomes a NodeApiError with the service code, message and the item index', async () => {
		api().get(`${API}/batches/batch_x`).reply(404, apiError('NOT_FOUND', 'Batch batch_x does not exist.'));
		const { error } = await runError({ params: { resource: 'batch', operation: 'get', batch: rl('batch_x') } });
		expect(error).toBeInstanceOf(NodeApiError);
		const e = error as NodeApiError;
		expect(e.message).toBe('Batch batch_x does not exist.');
		expect(e.httpCode).toBe('404');
		expect(e.description).toContain('NOT_FOUND');
		expect(e.context.itemIndex).toBe(0);
	});

	it('an auth error tells the user to check the key, without leaking it', async () => {
		api().post(`${API}/batches`).reply(401, apiError('INVALID_API_KEY', `Key ${TEST_CREDENTIALS.apiKey} is not valid`));
		const { error } = await runError({
			params: { resource: 'batch', operation: 'create', title: 'T', design: rl('design_classic') },
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).not.toContain(TEST_CREDENTIALS.apiKey);
		expect((error as NodeApiError).description).toMatch(/INVALID_API_KEY.*Copy the whole key again.*Put the key in the Certificate Service API credential/);
	});

	it('bad input is a NodeOperationError naming the item, and nothing is sent', async () => {
		const { error, requests } = await runError({
			items: inputItems(2),
			params: (i) => ({
				resource: 'certificate',
				operation: 'get',
				batch: rl('batch_1'),
				recipientId: i === 0 ? '   ' : 'rec_1',
			}),
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toMatch(/recipientId/);
		expect((error as NodeOperationError).context.itemIndex).toBe(0);
		expect(requests).toHaveLength(0);
	});

	it('continueOnFail turns failures into error items and keeps going', async () => {
		api().get(`${API}/batches/batch_1`).reply(200, batch('batch_1'));
		api().get(`${API}/batches/batch_3`).reply(409, apiError('CONFLICT', 'Busy', { field: 'batchId' }));
		const { output, requests } = await run({
			items: inputItems(3),
			continueOnFail: true,
			params: (i) => ({ resource: 'batch', operation: 'get', batch: rl(i === 1 ? '' : `batch_${i + 1}`) }),
		});
		expect(requests.map((r) => r.url)).toEqual([`${BASE}${API}/batches/batch_1`, `${BASE}${API}/batches/batch_3`]);
		expect(output).toEqual([
			{ json: batch('batch_1'), pairedItem: { item: 0 } },
			{
				json: expect.objectContaining({ error: expect.stringMatching(/batchId/), code: 'VALIDATION_ERROR', field: 'batchId' }),
				pairedItem: { item: 1 },
			},
			{
				json: expect.objectContaining({ error: 'Busy', code: 'CONFLICT', status: 409, field: 'batchId' }),
				pairedItem: { item: 2 },
			},
		]);
	});

	it('a bad base URL in the credential is reported before any request', async () => {
		const { error, requests } = await runError({
			credentials: { apiKey: 'k', baseUrl: 'http://certs.example.com' },
			params: { resource: 'design', operation: 'getMany', returnAll: true },
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toMatch(/https/);
		expect(requests).toHaveLength(0);
	});

	it('adds /api/v1 when the credential base URL leaves it out', async () => {
		api().get(`${API}/designs`).reply(200, []);
		const { requests } = await run({
			credentials: { ...TEST_CREDENTIALS, baseUrl: `${BASE}/` },
			params: { resource: 'design', operation: 'getMany', returnAll: true },
		});
		expect(requests[0].url).toBe(`${BASE}${API}/designs`);
	});
});

describe('rate limits and network failures (through the core)', () => {
	it('a 429 waits Retry-After with n8n-workflow sleep, then retries', async () => {
		api().get(`${API}/batches/batch_1`).reply(429, apiError('RATE_LIMITED', 'Slow down'), { 'Retry-After': '2' });
		api().get(`${API}/batches/batch_1`).reply(200, batch('batch_1'));
		const { output } = await run({ params: { resource: 'batch', operation: 'get', batch: rl('batch_1') } });
		expect(output[0].json.id).toBe('batch_1');
		expect(sleepMock).toHaveBeenCalledTimes(1);
		const waited = sleepMock.mock.calls[0][0] as number;
		expect(waited).toBeGreaterThanOrEqual(2000);
		expect(waited).toBeLessThan(2300);
	});

	it('paces when RateLimit-Remaining reaches 0', async () => {
		api()
			.get(`${API}/batches/b1`)
			.reply(200, batch('b1'), { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3' });
		api().get(`${API}/batches/b2`).reply(200, batch('b2'));
		await run({
			items: inputItems(2),
			params: (i) => ({ resource: 'batch', operation: 'get', batch: rl(`b${i + 1}`) }),
		});
		expect(sleepMock).toHaveBeenCalledTimes(1);
		expect(sleepMock.mock.calls[0][0]).toBeGreaterThan(2000);
	});

	it('a GET is retried after ECONNRESET (n8n wraps it in a NodeApiError; the core still sees the code)', async () => {
		api().get(`${API}/batches/batch_1`).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
		api().get(`${API}/batches/batch_1`).reply(200, batch('batch_1'));
		const { output, requests } = await run({ params: { resource: 'batch', operation: 'get', batch: rl('batch_1') } });
		expect(requests).toHaveLength(2);
		expect(output[0].json.id).toBe('batch_1');
	});

	it('an issue POST is never repeated after ECONNRESET: outcome unknown, naming the recipient', async () => {
		nockDesignReads();
		api().post(`${API}/batches/batch_1/recipients`).replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
		const { error, requests } = await runError({ params: issueAda() });
		// The design check's two reads, then the one POST, never repeated.
		expect(requests.map((r) => r.method)).toEqual(['GET', 'GET', 'POST']);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toMatch(/^(ada@example.com: )?Outcome unknown/);
		expect((error as Error).message).toContain('ada@example.com');
		expect((error as NodeApiError).description).toMatch(/It was not repeated, so nothing is applied twice/);
		// Said once: the message states what happened, the description (the core's hint) what to do.
		expect((error as Error).message).not.toMatch(/not repeated|not retried/);
	});
});
