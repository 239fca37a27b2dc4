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
