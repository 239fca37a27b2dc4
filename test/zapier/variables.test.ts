// The design's variables as named input fields, against the sandbox (Classic: course and
// score optional; Minimal: course required, completedOn optional; Modern: none). The
// dynamic-field functions run through appTester as Zapier's editor runs them, and the
// creates' perform through appTester as a Zap run does.
import zapier from 'zapier-platform-core';
import { createSandbox, type Sandbox } from '@certificate-service/sandbox';
import { App, app, caught } from './helpers';

jest.setTimeout(30_000);

let sb: Sandbox;
let authData: { apiKey: string; baseUrl: string };
const appTester = zapier.createAppTester(App);

type Field = { key: string; label?: string; required?: boolean; helpText?: string; dict?: boolean; default?: string };

beforeAll(async () => {
  sb = await createSandbox({ rateLimit: false });
  authData = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
afterAll(async () => sb?.close());
beforeEach(() => sb.controls.resetCounters());

const batchOf = async (designId: string): Promise<string> =>
  ((await appTester(app.creates.create_batch.operation.perform as never, { authData, inputData: { title: 'Vars', design_id: designId } })) as { id: string }).id;

/** The fields the editor shows for a create, for the given input so far (static and dynamic). */
const fieldsOf = (create: string, inputData: Record<string, unknown>) =>
  appTester(app.creates[create].operation.inputFields as never, { authData, inputData }) as Promise<Field[]>;
const perform = <T = Record<string, unknown>>(create: string, inputData: Record<string, unknown>) =>
  appTester(app.creates[create].operation.perform as never, { authData, inputData }) as Promise<T>;
const requests = (route: string) => sb.controls.counters().requests.byRoute[route] ?? 0;

describe('the batch field reloads the design\'s variables', () => {
  it.each(['issue_certificate', 'update_recipient', 'issue_certificates_bulk'])('%s: the batch field alters dynamic fields', (create) => {
    const batch = (app.creates[create].operation.inputFields as Field[]).find((f) => f.key === 'batch_id') as Field & { altersDynamicFields?: boolean };
    expect(batch.altersDynamicFields).toBe(true);
  });

  it('Minimal: one field per variable with label and required flag, then "Other Variables"', async () => {
    const fields = await fieldsOf('issue_certificate', { batch_id: await batchOf('design_minimal') });
    const course = fields.find((f) => f.key === 'variable__course');
    expect(course).toMatchObject({ label: 'Course', required: true });
    expect(course?.helpText).toMatch(/`course`: From the batch's certificate design\. The design requires it\./);
    expect(fields.find((f) => f.key === 'variable__completedOn')).toMatchObject({ label: 'Completed On', required: false });
    expect(fields.find((f) => f.key === 'data')).toMatchObject({ label: 'Other Variables', dict: true });
    // Static fields stay in place around them.
    expect(fields.map((f) => f.key)).toEqual(['batch_id', 'name', 'email', 'variable__course', 'variable__completedOn', 'data', 'allow_unknown_variables', 'send', 'skip_existing']);
    expect(fields.find((f) => f.key === 'allow_unknown_variables')).toMatchObject({ label: 'Send Variables the Design Does Not List', default: 'false' });
  });

  it('update: the same fields, none required (empty keeps the value)', async () => {
    const fields = await fieldsOf('update_recipient', { batch_id: await batchOf('design_minimal') });
    expect(fields.find((f) => f.key === 'variable__course')).toMatchObject({ required: false, helpText: expect.stringMatching(/leave empty to keep the current value/) });
    expect(fields.find((f) => f.key === 'allow_unknown_variables')).toBeUndefined(); // Update does not check names
  });

  it('bulk: the shared variables, not required (a line may give its own)', async () => {
    const fields = await fieldsOf('issue_certificates_bulk', { batch_id: await batchOf('design_minimal') });
    expect(fields.find((f) => f.key === 'variable__course')).toMatchObject({ label: 'Course', required: false, helpText: expect.stringMatching(/same on every certificate/) });
  });

  it('Modern, nothing issued yet: the free-form dict, saying why', async () => {
    const fields = await fieldsOf('issue_certificate', { batch_id: await batchOf('design_modern') });
    expect(fields.filter((f) => f.key.startsWith('variable__'))).toEqual([]);
    expect(fields.find((f) => f.key === 'data')).toMatchObject({ label: 'Certificate Variables', dict: true, helpText: expect.stringMatching(/lists no variables/) });
    expect(fields.find((f) => f.key === 'allow_unknown_variables')).toBeUndefined(); // nothing is refused there
  });

  it('Modern with certificates: the names seen in the batch, marked so', async () => {
    const batchId = await batchOf('design_modern');
    await perform('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', data: { grade: 'A' } });
    const fields = await fieldsOf('issue_certificate', { batch_id: batchId });
    expect(fields.find((f) => f.key === 'variable__grade')).toMatchObject({ label: 'grade', required: false, helpText: expect.stringMatching(/Seen in this batch/) });
  });

  it('a mapped batch: the free-form dict, saying why, and no request', async () => {
    const fields = await fieldsOf('issue_certificate', { batch_id: '{{123__id}}' });
    expect(fields.find((f) => f.key === 'data')?.helpText).toMatch(/mapped from an earlier step/);
    expect(sb.controls.counters().requests.total).toBe(0);
  });

  it('no batch yet: the dict, asking for one', async () => {
    const fields = await fieldsOf('issue_certificate', {});
    expect(fields.find((f) => f.key === 'data')?.helpText).toMatch(/Choose a batch/);
  });

  it('a batch that cannot be read: the dict, with the reason and no key in it', async () => {
    const fields = await fieldsOf('issue_certificate', { batch_id: 'batch_nope' });
    const help = fields.find((f) => f.key === 'data')?.helpText ?? '';
    expect(help).toMatch(/could not be loaded \(.*batch_nope.*\)/);
    expect(help).not.toContain(authData.apiKey);
  });
});

describe('perform: named fields and the dict become data', () => {
  it('issue: the certificate carries the named and the other variables (a name the design does not list, allowed); named wins, in any case', async () => {
    const batchId = await batchOf('design_minimal');
    const result = await perform<{ id: string; data: Record<string, string> }>('issue_certificate', {
      batch_id: batchId,
      name: 'Ada',
      email: 'ada@example.com',
      variable__course: 'Welding',
      variable__completedOn: '',
      data: { COURSE: 'ignored', room: 'B2' },
      allow_unknown_variables: 'true',
    });
    expect(sb.controls.certificates(batchId)[0].data).toEqual({ course: 'Welding', room: 'B2' });
    expect(result.data).toEqual({ course: 'Welding', room: 'B2' });
  });

  it('issue: a required variable mapped empty halts, naming it, and nothing is issued', async () => {
    const batchId = await batchOf('design_minimal');
    const error = await caught(perform('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', variable__course: '  ', variable__completedOn: 'today' }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/"data\.course".*Course.*required/);
    expect(requests('POST /batches/:id/recipients')).toBe(0);
    expect(sb.controls.certificates(batchId)).toHaveLength(0);
  });

  it('issue with only the dict: the design is still checked (issue 33), and nothing is sent', async () => {
    const batchId = await batchOf('design_minimal');
    sb.controls.resetCounters();
    const error = await caught(perform('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', data: { completedOn: 'today' } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/data\.course/);
    expect(sb.controls.counters().requests.byRoute).toEqual({ 'GET /batches/:id': 1, 'GET /designs': 1 });
  });

  it('update: a named field sets, an empty one keeps', async () => {
    const batchId = await batchOf('design_minimal');
    const issued = await perform<{ id: string }>('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', variable__course: 'Welding' });
    await perform('update_recipient', { batch_id: batchId, recipient_id: issued.id, variable__course: '', variable__completedOn: '2026-11-25' });
    expect(sb.controls.certificates(batchId)[0].data).toEqual({ course: 'Welding', completedOn: '2026-11-25' });
  });

  it('update: a required variable blanked in the dict halts before the call', async () => {
    const batchId = await batchOf('design_minimal');
    const issued = await perform<{ id: string }>('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', variable__course: 'Welding' });
    sb.controls.resetCounters();
    const error = await caught(perform('update_recipient', { batch_id: batchId, recipient_id: issued.id, variable__completedOn: 'x', data: { course: '' } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toMatch(/"data\.course"/);
    expect(requests('PATCH /batches/:id/recipients/:rid')).toBe(0);
  });

  it('bulk: shared named variables, a line overriding them, and a line that blanks a required one fails alone', async () => {
    const batchId = await batchOf('design_minimal');
    const result = await perform<{ issuedCount: number; failedCount: number; results: Array<{ status: string; errorCode: string; errorMessage: string }> }>('issue_certificates_bulk', {
      batch_id: batchId,
      variable__course: 'Shared',
      recipients: [
        { name: 'A', email: 'a@example.com' },
        { name: 'B', email: 'b@example.com', data_json: '{"course": "Own"}' },
        { name: 'C', email: 'c@example.com', data_json: '{"course": ""}' },
      ],
    });
    expect(result).toMatchObject({ issuedCount: 2, failedCount: 1 });
    expect(result.results[2]).toMatchObject({ status: 'failed', errorCode: 'VALIDATION_ERROR', errorMessage: expect.stringMatching(/"data\.course"/) });
    expect(sb.controls.certificates(batchId).map((c) => c.data.course)).toEqual(['Shared', 'Own']);
  });
});

describe('a variable the design does not list (issue 42)', () => {
  it('issue: a typo in Other Variables halts the step, naming the closest variable and the field that allows it; nothing is sent', async () => {
    const batchId = await batchOf('design_minimal');
    sb.controls.resetCounters();
    const error = await caught(perform('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', variable__course: 'Welding', data: { compeltedOn: '2026-11-01' } }));
    expect(error.name).toBe('HaltedError');
    expect(error.firstLine).toContain('"compeltedOn" is not a variable of the certificate design; did you mean "completedOn"?');
    expect(error.message).toContain('"Send Variables the Design Does Not List" to True');
    expect(requests('POST /batches/:id/recipients') + requests('POST /batches/:id/recipients/bulk')).toBe(0);
    expect(sb.controls.certificates(batchId)).toHaveLength(0);
  });

  it('issue: `Course` in Other Variables fills the required `course`, sent as `course`', async () => {
    const batchId = await batchOf('design_minimal');
    await perform('issue_certificate', { batch_id: batchId, name: 'Ada', email: 'ada@example.com', data: { Course: 'Welding' } });
    expect(sb.controls.certificates(batchId)[0].data).toEqual({ course: 'Welding' });
  });

  it('bulk: a line whose JSON has a typo fails alone, before any write; True sends it; a design that lists none refuses nothing', async () => {
    const batchId = await batchOf('design_minimal');
    const lines = [
      { name: 'A', email: 'a@example.com', data_json: '{"course": "C", "compeltedOn": "2026-11-01"}' },
      { name: 'B', email: 'b@example.com', data_json: '{"Course": "C"}' },
    ];
    const result = await perform<{ issuedCount: number; results: Array<{ outcome: string; errorMessage: string }> }>('issue_certificates_bulk', { batch_id: batchId, recipients: lines });
    expect(result.issuedCount).toBe(1);
    expect(result.results[0]).toMatchObject({ outcome: 'invalid', errorMessage: expect.stringContaining('did you mean "completedOn"?') });
    expect(sb.controls.certificates(batchId).map((c) => [c.email, c.data])).toEqual([['b@example.com', { course: 'C' }]]);

    const allowed = await perform<{ issuedCount: number; skippedCount: number }>('issue_certificates_bulk', { batch_id: batchId, recipients: lines, allow_unknown_variables: true });
    expect(allowed).toMatchObject({ issuedCount: 1, skippedCount: 1 });
    expect(sb.controls.certificates(batchId).find((c) => c.email === 'a@example.com')?.data).toEqual({ course: 'C', compeltedOn: '2026-11-01' });

    const modern = await batchOf('design_modern');
    const free = await perform<{ issuedCount: number }>('issue_certificates_bulk', { batch_id: modern, recipients: [{ name: 'A', email: 'a@example.com', data_json: '{"anything": "x"}' }] });
    expect(free.issuedCount).toBe(1);
  });
});
