// "Map Design Variables": the resource mapper's columns from the chosen batch's design (or
// the names seen in the batch), both mapping modes on Issue and Update, and the required
// check per item before any request. Against the sandbox (Minimal: course required,
// completedOn optional; Modern: none).
import type { INodeExecutionData, INodeProperties, ResourceMapperField } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CertificateService } from '../../n8n/nodes/CertificateService/CertificateService.node';
import { getVariableColumns } from '../../n8n/nodes/CertificateService/methods/resourceMapping';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { type Credentials, type FakeOptions, type ParamsFor, fakeExecute, fakeLoadOptions, issueParams, rl } from './fake-context';

jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async () => undefined),
}));
void sleep;

let sb: Sandbox;
let credentials: Credentials;

beforeAll(async () => {
	sb = await createSandbox({ rateLimit: false });
});
beforeEach(() => {
	credentials = { apiKey: sb.controls.createWorkspace({ quota: 100 }).apiKey, baseUrl: sb.url };
	sb.controls.resetCounters();
});
afterAll(() => sb.close());

async function run(params: ParamsFor, options: Partial<FakeOptions> = {}) {
	const fake = fakeExecute({ params, credentials, ...options });
	const [output] = await new CertificateService().execute.call(fake.context);
	return { output, requests: fake.requests };
}

async function batchOf(designId: string): Promise<string> {
	const { output } = await run({ resource: 'batch', operation: 'create', title: 'Vars', design: rl(designId) });
	return output[0].json.id as string;
}

async function columns(batch: unknown, operation = 'issue') {
	const fake = fakeLoadOptions({ credentials, params: { batch, operation } });
	return { result: await getVariableColumns.call(fake.context), requests: fake.requests };
}

/** The parameter as the editor saves it, with the schema it loaded. */
function mapper(schema: ResourceMapperField[], value: Record<string, unknown> | null, mappingMode = 'defineBelow') {
	return { mappingMode, value, matchingColumns: [], schema, attemptToConvertTypes: false, convertFieldsToString: true };
}

const issue = (batchId: string, variables: unknown) => (i: number) =>
	issueParams(batchId, `Learner ${i}`, `learner${i}@example.com`, { specifyData: 'mapVariables', variables, skipExisting: false });

describe('the columns', () => {
	it('Minimal on Issue: one column per variable, the required one marked, none a match key', async () => {
		const { result } = await columns(rl(await batchOf('design_minimal'), 'list'));
		expect(result.fields).toEqual([
			{ id: 'course', displayName: 'Course', required: true, defaultMatch: false, canBeUsedToMatch: false, display: true, type: 'string' },
			{ id: 'completedOn', displayName: 'Completed On', required: false, defaultMatch: false, canBeUsedToMatch: false, display: true, type: 'string' },
		]);
	});

	it('on Update none is required (an empty column keeps the value)', async () => {
		const { result } = await columns(rl(await batchOf('design_minimal')), 'update');
		expect(result.fields.map((f) => f.required)).toEqual([false, false]);
	});

	it('Modern: no columns, with a notice naming the other ways; then the names seen in the batch', async () => {
		const batchId = await batchOf('design_modern');
		const empty = await columns(rl(batchId));
		expect(empty.result).toEqual({ fields: [], emptyFieldsNotice: expect.stringMatching(/lists no variables.*Using Fields Below/) });
		await run({ resource: 'certificate', operation: 'issue', batch: rl(batchId), name: 'A', email: 'a@example.com', specifyData: 'json', dataJson: { grade: 'A' } });
		const seen = await columns(rl(batchId));
		expect(seen.result.fields).toEqual([expect.objectContaining({ id: 'grade', displayName: 'grade (seen in this batch)', required: false })]);
	});

	it('no batch, or a batch from an expression: a notice and no request', async () => {
		for (const batch of [rl(''), rl('={{ $json.batchId }}')]) {
			const { result, requests } = await columns(batch);
			expect(result.fields).toEqual([]);
			expect(result.emptyFieldsNotice).toBeTruthy();
			expect(requests).toEqual([]);
		}
	});

	it('an unknown batch: the service\'s error, as a node error', async () => {
		await expect(columns(rl('batch_nope'))).rejects.toThrow(/batch_nope/);
	});
});

describe('issuing through the mapper', () => {
	let batchId: string;
	let schema: ResourceMapperField[];
	beforeEach(async () => {
		batchId = await batchOf('design_minimal');
		schema = (await columns(rl(batchId))).result.fields;
	});

	it('Map Each Column Manually: the certificate carries the values; empty columns are not sent', async () => {
		const { output } = await run(issue(batchId, mapper(schema, { course: 'Welding', completedOn: '' })));
		expect(output[0].json.data).toEqual({ course: 'Welding' });
		expect(sb.controls.certificates(batchId)[0].data).toEqual({ course: 'Welding' });
	});

	it('Map Automatically: the input item\'s fields of the same names, and no others', async () => {
		const items: INodeExecutionData[] = [
			{ json: { course: 'Welding', completedOn: '2026-11-25', unrelated: 'x' } },
			{ json: { course: 'Brazing', score: 7 } },
		];
		await run(issue(batchId, mapper(schema, null, 'autoMapInputData')), { items });
		expect(sb.controls.certificates(batchId).map((c) => c.data)).toEqual([{ course: 'Welding', completedOn: '2026-11-25' }, { course: 'Brazing' }]);
	});

	it('a required column left empty: that item fails naming it, unsent; the others are issued (Continue On Fail)', async () => {
		const items: INodeExecutionData[] = [{ json: { course: 'Welding' } }, { json: { course: '' } }, { json: {} }];
		const { output, requests } = await run(issue(batchId, mapper(schema, null, 'autoMapInputData')), { items, continueOnFail: true });
		expect(output.map((o) => o.json.field ?? 'ok')).toEqual(['ok', 'data.course', 'data.course']);
		expect(output[1]).toMatchObject({ pairedItem: { item: 1 }, json: { code: 'VALIDATION_ERROR', phase: 'validation', error: expect.stringMatching(/data\.course/) } });
		// One single-issue POST for the one valid item.
		expect(requests.filter((r) => r.method === 'POST').map((r) => (r.body as { email: string }).email)).toEqual(['learner0@example.com']);
	});

	it('without Continue On Fail: the node stops on that item before anything is sent', async () => {
		const fake = fakeExecute({ params: issue(batchId, mapper(schema, { course: ' ' })), credentials, items: [{ json: {} }, { json: {} }] });
		const error = await new CertificateService().execute.call(fake.context).then(() => undefined, (e: Error) => e);
		expect(error?.message).toMatch(/data\.course/);
		expect(fake.requests).toEqual([]);
		expect(sb.controls.certificates(batchId)).toHaveLength(0);
	});

	it('update: a filled column changes, an empty one keeps its value', async () => {
		await run(issue(batchId, mapper(schema, { course: 'Welding' })));
		const id = sb.controls.certificates(batchId)[0].id;
		await run({
			resource: 'certificate',
			operation: 'update',
			batch: rl(batchId),
			recipientId: rl(id),
			specifyData: 'mapVariables',
			variables: mapper(schema, { course: '', completedOn: '2026-11-25' }),
		});
		expect(sb.controls.certificates(batchId)[0].data).toEqual({ course: 'Welding', completedOn: '2026-11-25' });
	});
});

describe('node versions', () => {
	const properties = new CertificateService().description.properties as INodeProperties[];
	const issueSelectors = properties.filter((p) => p.name === 'specifyData' && p.displayOptions?.show?.operation?.includes('issue'));

	it('one version, 1; Issue\'s Data defaults to Map Design Variables', () => {
		const { description } = new CertificateService();
		expect(description.version).toBe(1);
		expect(description.defaultVersion).toBeUndefined();
		expect(issueSelectors.map((p) => [p.default, p.displayOptions?.show?.['@version']])).toEqual([['mapVariables', undefined]]);
	});

	it('the mapper depends on the batch and is shown only for Map Design Variables', () => {
		const variables = properties.filter((p) => p.name === 'variables');
		expect(variables).toHaveLength(2); // Issue and Update
		for (const p of variables) {
			expect(p.typeOptions).toMatchObject({ loadOptionsDependsOn: ['batch.value'], resourceMapper: { resourceMapperMethod: 'getVariableColumns', mode: 'add', multiKeyMatch: false } });
			expect(p.displayOptions?.show?.specifyData).toEqual(['mapVariables']);
		}
		expect(new CertificateService().methods.resourceMapping.getVariableColumns).toBe(getVariableColumns);
	});
});
