// Issue 33: n8n's Issue checks the design's required variables by default. Against a stub
// service that does not enforce the design (test/sdk/stub-service.ts, a real HTTP server), an
// item that leaves a required variable empty is never sent and the others are issued.
import type { ResourceMapperField } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { DESIGN_NONE, DESIGN_REQUIRED, sentEmails, startStub, type StubService } from '../sdk/stub-service';
import { type FakeOptions, type ParamsFor, fakeExecute, inputItems, issueParams, rl } from './fake-context';
import { API_KEY } from '../support/service';

let stub: StubService;
beforeEach(async () => {
	stub = await startStub({ batches: { b_req: 'design_req', b_none: 'design_none' }, designs: [DESIGN_REQUIRED, DESIGN_NONE] });
});
afterEach(() => stub.close());

async function run(params: ParamsFor, options: Partial<FakeOptions> = {}) {
	const fake = fakeExecute({ params, credentials: { apiKey: API_KEY, baseUrl: stub.baseUrl }, items: inputItems(3), ...options });
	const [output] = await new CertificateService().execute.call(fake.context);
	return output;
}

const courses = ['Welding', '', 'Rigging'];
/** "Using Fields Below" (free-form): nothing tells the node what the design requires. */
const freeForm = (batchId: string) => (i: number) =>
	issueParams(batchId, `P${i}`, `p${i}@example.com`, { specifyData: 'fields', dataFields: { field: courses[i] ? [{ name: 'course', value: courses[i] }] : [] } });

it('free-form fields: the design is read, the item without the required course is an error item and never sent, the others are issued', async () => {
	const output = await run(freeForm('b_req'), { continueOnFail: true });
	expect(output.map((o) => o.json.email ?? o.json.field)).toEqual(['p0@example.com', 'data.course', 'p2@example.com']);
	expect(output[1].json).toMatchObject({ code: 'VALIDATION_ERROR', field: 'data.course' });
	expect(sentEmails(stub)).toEqual(['p0@example.com', 'p2@example.com']);
	expect(stub.requests.filter((r) => r.method === 'GET').map((r) => r.path.split('?')[0])).toEqual(['/batches/b_req', '/designs', '/batches/b_req/recipients']);
});

it('without Continue On Fail: the invalid item stops the node and nothing is sent', async () => {
	const fake = fakeExecute({ params: freeForm('b_req'), credentials: { apiKey: API_KEY, baseUrl: stub.baseUrl }, items: inputItems(3) });
	const error = await new CertificateService().execute.call(fake.context).catch((e: unknown) => e);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect((error as NodeOperationError).context.itemIndex).toBe(1);
	expect(sentEmails(stub)).toEqual([]);
});

it('a design that lists no variables does not block issuing', async () => {
	const output = await run(freeForm('b_none'));
	expect(output.map((o) => o.json.email)).toEqual(['p0@example.com', 'p1@example.com', 'p2@example.com']);
});

it('Map Design Variables: the mapper\'s saved columns are the check, and the design is not read again', async () => {
	const schema: ResourceMapperField[] = [{ id: 'course', displayName: 'Course', required: true, defaultMatch: false, display: true, type: 'string' }];
	const output = await run(
		(i) => ({
			resource: 'certificate',
			operation: 'issue',
			batch: rl('b_none'), // its design lists nothing: only the mapper says `course` is required
			name: `P${i}`,
			email: `p${i}@example.com`,
			specifyData: 'mapVariables',
			variables: { mappingMode: 'defineBelow', value: { course: courses[i] }, matchingColumns: [], schema, attemptToConvertTypes: false, convertFieldsToString: true },
		}),
		{ continueOnFail: true },
	);
	expect(output[1].json).toMatchObject({ code: 'VALIDATION_ERROR', field: 'data.course' });
	expect(sentEmails(stub)).toEqual(['p0@example.com', 'p2@example.com']);
	expect(stub.requests.some((r) => r.path === '/designs')).toBe(false);
});

describe('a variable the design does not list (issue 42)', () => {
	const TWINS = { id: 'design_twins', variables: [{ name: 'Course' }, { name: 'course' }] };
	beforeEach(async () => {
		await stub.close();
		stub = await startStub({ batches: { b_req: 'design_req', b_none: 'design_none', b_twins: 'design_twins' }, designs: [DESIGN_REQUIRED, DESIGN_NONE, TWINS] });
	});
	const fields = (batchId: string, pairs: Array<{ name: string; value: string }>, more = {}) => (i: number) =>
		issueParams(batchId, `P${i}`, `p${i}@example.com`, { specifyData: 'fields', dataFields: { field: pairs }, ...more });
	type Sent = { data: Record<string, string> };
	// A bulk call's recipients, or the one certificate of a single-issue call.
	const sentData = () => stub.requests.filter((r) => r.method === 'POST').flatMap((r) => ((r.body as { recipients?: Sent[] }).recipients ?? [r.body as Sent]).map((x) => x.data));

	it('Using Fields Below: a typo name fails the item, naming the closest variable and the option that allows it; nothing is sent', async () => {
		const fake = fakeExecute({ params: fields('b_req', [{ name: 'course', value: 'Welding' }, { name: 'scroe', value: '9' }]), credentials: { apiKey: API_KEY, baseUrl: stub.baseUrl }, items: inputItems(2) });
		const error = (await new CertificateService().execute.call(fake.context).catch((e: unknown) => e)) as NodeOperationError;
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Invalid "data.scroe": "scroe" is not a variable of the certificate design; did you mean "score"?');
		expect(error.description).toContain('Options → Allow Unknown Variables');
		expect(stub.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('Using JSON: with Continue On Fail, each such item is an error item; `Course` fills `course` and is sent as `course`', async () => {
		const json = ['{"Course": "Welding"}', '{"course": "Rigging", "grade": "A"}', '{" COURSE ": "Safety"}'];
		const output = await run((i) => issueParams('b_req', `P${i}`, `p${i}@example.com`, { specifyData: 'json', dataJson: json[i] }), { continueOnFail: true });
		expect(output[1].json).toMatchObject({ code: 'VALIDATION_ERROR', field: 'data.grade' });
		expect(sentEmails(stub)).toEqual(['p0@example.com', 'p2@example.com']);
		expect(sentData()).toEqual([{ course: 'Welding' }, { course: 'Safety' }]);
	});

	it('a name that matches two variables of the design fails the item, naming both, even with Allow Unknown Variables', async () => {
		const output = await run(fields('b_twins', [{ name: 'course', value: 'X' }], { options: { allowUnknownVariables: true } }), { continueOnFail: true, items: inputItems(1) });
		expect(String(output[0].json.error ?? output[0].json.message)).toContain('"course" matches 2 variables of the certificate design ("Course", "course")');
		expect(sentEmails(stub)).toEqual([]);
	});

	it('Allow Unknown Variables: the name is sent as given', async () => {
		const output = await run(fields('b_req', [{ name: 'course', value: 'Welding' }, { name: 'grade', value: 'A' }], { options: { allowUnknownVariables: true } }), { items: inputItems(1) });
		expect(output.map((o) => o.json.email)).toEqual(['p0@example.com']);
		expect(sentData()).toEqual([{ course: 'Welding', grade: 'A' }]);
	});

	it('a design that lists no variables refuses no name; nor do mapper columns seen in the batch', async () => {
		await run(fields('b_none', [{ name: 'anything', value: 'x' }]), { items: inputItems(1) });
		const schema: ResourceMapperField[] = [{ id: 'grade', displayName: 'grade (seen in this batch)', required: false, defaultMatch: false, display: true, type: 'string' }];
		const mapped = { specifyData: 'mapVariables', variables: { mappingMode: 'defineBelow', value: { grade: 'A', cohort: 'Nov' }, matchingColumns: [], schema, attemptToConvertTypes: false, convertFieldsToString: true } };
		await run((i) => issueParams('b_none', `M${i}`, `m${i}@example.com`, mapped), { items: inputItems(1) });
		expect(sentData()).toEqual([{ anything: 'x' }, { grade: 'A', cohort: 'Nov' }]);
	});
});
