/**
 * Issue 18 in n8n: when the batch's list comes back in a shape the core cannot read, Issue
 * (with "Skip Emails Already Issued", on by default) and Find by Email end each item with
 * the UNEXPECTED_RESPONSE error, and no issue request is made.
 */
import nock from 'nock';
import { NodeApiError } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { API, BASE, nockDesignReads } from './fixtures';
import { type FakeOptions, fakeExecute, inputItems, rl } from './fake-context';
import { setupNock } from '../support/nock';

setupNock();

async function run(options: FakeOptions) {
	const fake = fakeExecute(options);
	const output = await new CertificateService().execute.call(fake.context);
	return { ...fake, output: output[0] };
}

const answers: Array<[string, (scope: nock.Interceptor) => nock.Scope, RegExp]> = [
	['{entries: [...]}', (i) => i.reply(200, { entries: [] }), /an object with keys "entries"/],
	['{payload: {rows: [...]}}', (i) => i.reply(200, { payload: { rows: [] } }), /an object with keys "payload"/],
	['a 200 HTML page', (i) => i.reply(200, '<html>Sign in</html>', { 'Content-Type': 'text/html' }), /\(text\/html\) with an HTML page/],
];

describe.each(answers)('the batch list answers %s', (_name, answer, said) => {
	const list = () => nock(BASE).get(`${API}/batches/batch_1/recipients`).query(true);
	const issue = (i: number) => ({ resource: 'certificate', operation: 'issue', batch: rl('batch_1'), name: `P${i}`, email: `p${i}@example.com` });

	it('Issue with Continue On Fail: every item is an error item, and nothing is issued', async () => {
		nockDesignReads();
		answer(list());
		const { output, requests } = await run({ items: inputItems(3), params: issue, continueOnFail: true });
		// The design check's reads (the batch, its design), then the list that cannot be read.
		expect(requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
		expect(output).toHaveLength(3);
		for (const [i, item] of output.entries()) {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({ code: 'UNEXPECTED_RESPONSE', phase: 'response' });
			expect(item.json.error).toMatch(/not issued, because batch \S+ could not be read to skip the certificates it already has/);
			expect(item.json.error).toMatch(said);
			expect(item.json.outcomeUnknown).toBeUndefined();
		}
	});

	it('Issue without Continue On Fail: stops on the first item with the error, nothing issued', async () => {
		nockDesignReads();
		answer(list());
		const fake = fakeExecute({ items: inputItems(3), params: issue });
		const error = await new CertificateService().execute.call(fake.context).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toMatch(said);
		expect((error as NodeApiError).description).toMatch(/Check the Base URL in the Certificate Service API credential/);
		expect(fake.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
	});

	it('Find by Email: an error item per item, not "no certificate"', async () => {
		answer(list());
		const { output } = await run({
			items: inputItems(2),
			params: () => ({ resource: 'certificate', operation: 'findByEmail', batch: rl('batch_1'), email: 'p0@example.com' }),
			continueOnFail: true,
		});
		expect(output.map((o) => o.json.code)).toEqual(['UNEXPECTED_RESPONSE', 'UNEXPECTED_RESPONSE']);
	});
});
