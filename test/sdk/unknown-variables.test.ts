// Issue 42, item 1: a data key the design does not list is an error by default. Against a stub
// that issues whatever it is sent (it does not check the design), an item with a typo key is
// never sent and names the closest variable; `Course` fills `course` and goes out as `course`;
// a key that matches two variables is refused naming both; `allowUnknownVariables` sends the
// unknown key; a design that lists no variables refuses nothing.
import { createClient } from '@certificate-service/sdk';
import { matchVariableNames, variableNames, type DesignVariable } from '@certificate-service/sdk/core';
import { DESIGN_NONE, DESIGN_REQUIRED, sentEmails, startStub, type StubService } from './stub-service';

const DESIGN_TWINS = { id: 'design_twins', variables: [{ name: 'Course' }, { name: 'course' }] };
const DESIGN_SPACED = { id: 'design_spaced', variables: { course: { required: false }, ' course': { required: false } } };

let stub: StubService;
beforeEach(async () => {
  stub = await startStub({
    batches: { b_req: 'design_req', b_none: 'design_none', b_twins: 'design_twins', b_spaced: 'design_spaced' },
    designs: [DESIGN_REQUIRED, DESIGN_NONE, DESIGN_TWINS, DESIGN_SPACED],
  });
});
afterEach(() => stub.close());

const client = () => createClient({ baseUrl: stub.baseUrl, apiKey: 'sk_test_stub_key_0123456789' });
const posts = () => stub.requests.filter((r) => r.method === 'POST');
/** The data each certificate was sent with, by email. */
type Sent = { email: string; data: Record<string, string> };
const sentData = () => Object.fromEntries(posts().flatMap((r) => ((r.body as { recipients?: Sent[] }).recipients ?? [r.body as Sent]).map((x) => [x.email, x.data])));

test('a typo key makes its item invalid, naming the key and the closest variable; nothing of it is sent', async () => {
  const out = await client().issueMany([
    { batchId: 'b_req', name: 'Ada', email: 'ada@example.com', data: { course: 'Welding', scroe: '97' } },
    { batchId: 'b_req', name: 'Cy', email: 'cy@example.com', data: { course: 'Rigging' } },
  ]);
  expect(out.map((o) => o.kind)).toEqual(['invalid', 'issued']);
  const error = out[0].ok ? undefined : out[0].error;
  expect(error).toMatchObject({ code: 'VALIDATION_ERROR', phase: 'validation', field: 'data.scroe' });
  expect(error?.message).toBe('Invalid "data.scroe": "scroe" is not a variable of the certificate design; did you mean "score"?');
  expect(error?.hintTopic).toBe('unknown-variable');
  expect(sentEmails(stub)).toEqual(['cy@example.com']);
});

test('with stopOnInvalid, a typo key sends nothing at all; every unknown key is named', async () => {
  const out = await client().issueMany(
    [
      { batchId: 'b_req', name: 'Ada', email: 'ada@example.com', data: { course: 'Welding', compeltedOn: '2026-11-01', zzz: '1' } },
      { batchId: 'b_req', name: 'Cy', email: 'cy@example.com', data: { course: 'Rigging' } },
    ],
    { stopOnInvalid: true },
  );
  expect(out.map((o) => o.kind)).toEqual(['invalid', 'notSent']);
  expect(out[0].ok ? '' : out[0].error.message).toMatch(/"compeltedOn" is not a variable of the certificate design; its variables are "course", "score" \(also not variables of the design: data\.zzz\)$/);
  expect(posts()).toHaveLength(0);
});

test('`Course` fills the required `course` (trimmed, any case) and is sent as the design spells it', async () => {
  const out = await client().issueMany([{ batchId: 'b_req', name: 'Ada', email: 'ada@example.com', data: { ' Course ': 'Welding', SCORE: '97' } }]);
  expect(out.map((o) => o.kind)).toEqual(['issued']);
  expect(Object.entries(sentData()['ada@example.com'])).toEqual([['course', 'Welding'], ['score', '97']]);
});

test('shared data is matched too; an item\'s own key wins over the shared one, whatever their case', async () => {
  const out = await client().issueMany(
    [
      { batchId: 'b_req', name: 'Ada', email: 'ada@example.com', data: { course: 'Own' } },
      { batchId: 'b_req', name: 'Cy', email: 'cy@example.com' },
    ],
    { data: { COURSE: 'Shared', Score: '1' } },
  );
  expect(out.map((o) => o.kind)).toEqual(['issued', 'issued']);
  expect(sentData()).toEqual({ 'ada@example.com': { course: 'Own', score: '1' }, 'cy@example.com': { course: 'Shared', score: '1' } });
});

test('an unknown key in the shared data makes every item of the batch invalid, before anything is sent', async () => {
  const items = [{ batchId: 'b_req', name: 'Ada', email: 'ada@example.com', data: { course: 'C' } }];
  const out = await client().issueMany(items, { data: { corse: 'x' } });
  expect(out[0]).toMatchObject({ kind: 'invalid', error: { field: 'data.corse', message: expect.stringContaining('did you mean "course"?') } });
  expect(posts()).toHaveLength(0);
});

test('a key that matches two variables is refused, naming both; so are two keys that fill one variable', async () => {
  const out = await client().issueMany([
    { batchId: 'b_twins', name: 'Ada', email: 'ada@example.com', data: { course: 'C' } },
    { batchId: 'b_spaced', name: 'Bo', email: 'bo@example.com', data: { course: 'C' } },
    { batchId: 'b_req', name: 'Cy', email: 'cy@example.com', data: { course: 'C', Course: 'D' } },
  ]);
  expect(out.map((o) => o.kind)).toEqual(['invalid', 'invalid', 'invalid']);
  const messages = out.map((o) => (o.ok ? '' : o.error.message));
  expect(messages[0]).toBe('Invalid "data.course": "course" matches 2 variables of the certificate design ("Course", "course"), which differ only in letter case or spaces, so it is not sent');
  expect(messages[1]).toContain('("course", " course")');
  expect(messages[2]).toBe('Invalid "data.Course": "course" and "Course" both fill the variable "course"; keep one');
  expect(posts()).toHaveLength(0);
});

test('allowUnknownVariables: the unknown key is sent as given (a known one still in the design\'s spelling)', async () => {
  const items = [{ batchId: 'b_req', name: 'Ada', email: 'ada@example.com', data: { Course: 'Welding', cohort: 'Nov' } }];
  const preview = await client().previewIssue(items, { allowUnknownVariables: true });
  expect(preview.outcomes.map((o) => o.kind)).toEqual(['wouldIssue']);
  const out = await client().issueMany(items, { allowUnknownVariables: true });
  expect(out.map((o) => o.kind)).toEqual(['issued']);
  expect(sentData()['ada@example.com']).toEqual({ course: 'Welding', cohort: 'Nov' });
});

test('allowUnknownVariables does not let an ambiguous key through', async () => {
  const out = await client().issueMany([{ batchId: 'b_twins', name: 'Ada', email: 'ada@example.com', data: { course: 'C' } }], { allowUnknownVariables: true });
  expect(out[0].kind).toBe('invalid');
  expect(posts()).toHaveLength(0);
});

test('a design that lists no variables, variables: false, or names only seen in the batch: no key is refused, and keys go as given', async () => {
  const item = (batchId: string, email: string) => ({ batchId, name: 'A', email, data: { Cohort: 'Nov' } });
  const seen = new Map<string, DesignVariable[]>([['b_req', [{ name: 'cohort', label: 'cohort', required: false, source: 'seen' }]]]);
  expect((await client().issueMany([item('b_none', 'a@example.com')])).map((o) => o.kind)).toEqual(['issued']);
  expect((await client().issueMany([item('b_req', 'b@example.com')], { variables: false })).map((o) => o.kind)).toEqual(['issued']);
  expect((await client().issueMany([item('b_req', 'c@example.com')], { variables: seen })).map((o) => o.kind)).toEqual(['issued']);
  expect(Object.values(sentData())).toEqual([{ Cohort: 'Nov' }, { Cohort: 'Nov' }, { Cohort: 'Nov' }]);
});

test('previewIssue reports an unknown key as invalid, with no write', async () => {
  const preview = await client().previewIssue([{ batchId: 'b_req', name: 'Ada', email: 'ada@example.com', data: { course: 'C', scroe: '1' } }]);
  expect(preview.outcomes[0]).toMatchObject({ kind: 'invalid', error: { field: 'data.scroe' } });
  expect(preview.wouldIssue).toBe(0);
  expect(posts()).toHaveLength(0);
});

test('matchVariableNames keeps a variable called `__proto__` as data', () => {
  const known = variableNames([{ name: '__proto__', label: 'p', required: false, source: 'design' }])!;
  const out = matchVariableNames(JSON.parse('{"__PROTO__": "x"}') as Record<string, string>, known);
  expect(Object.entries(out)).toEqual([['__proto__', 'x']]);
});
