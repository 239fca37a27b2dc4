import nock from 'nock';
import { CertificateServiceError, checkRequiredVariables, type DesignVariable } from '@certificate-service/sdk/core';
import { readVariables } from '../../shared/sdk/src/variables';
import { API, BASE, KEY, makeClient, recipient } from './helpers';

// A design's variables from every shape the core reads; the learned fallback; the check
// run before sending.
beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});
afterAll(() => nock.enableNetConnect());

const context = { endpoint: 'GET /designs', status: 200, contentType: 'application/json', issues: false };
const v = (name: string, extra: Partial<DesignVariable> = {}): DesignVariable => ({ name, label: name, required: false, source: 'design', ...extra });

describe('readVariables: the shapes a design may list its variables in', () => {
  test.each([
    ['a list of names under variables', { variables: ['course', ' score '] }, [v('course'), v('score')]],
    ['objects named by name under fields', { fields: [{ name: 'course', label: 'Course', required: true, type: 'text', default: 'Welding' }] }, [v('course', { label: 'Course', required: true, type: 'text', default: 'Welding' })]],
    ['objects named by key under attributes', { attributes: [{ key: 'score', required: 'true' }] }, [v('score', { required: true })]],
    ['objects named by id under placeholders', { placeholders: [{ id: 'date', default: 3 }] }, [v('date', { default: '3' })]],
    ['a map of name to object under dynamicFields', { dynamicFields: { course: { required: true }, score: {}, hours: true } }, [v('course', { required: true }), v('score'), v('hours')]],
    ['a repeated name: the first counts', { variables: ['a', { name: 'a', required: true }] }, [v('a')]],
    ['the first key present wins', { variables: ['a'], fields: ['b'] }, [v('a')]],
    ['isRequired is read as required', { fields: [{ name: 'a', isRequired: true }] }, [v('a', { required: true })]],
  ])('%s', (_name, fields, expected) => {
    expect(readVariables({ id: 'd1', ...fields }, context)).toEqual(expected);
  });

  test.each([
    ['no known key', {}],
    ['an empty list', { variables: [] }],
    ['an empty map', { fields: {} }],
    ['null', { variables: null }],
  ])('%s: the design says nothing (undefined)', (_name, fields) => {
    expect(readVariables({ id: 'd1', ...fields }, context)).toBeUndefined();
  });

  test.each([
    ['a number', { variables: 42 }, /a JSON number/],
    ['an entry without a name', { fields: [{ label: 'Course', secretValue: 'hunter2-value' }] }, /entry 0 has no "name", "key" or "id".*|keys "label", "secretValue"/],
    ['an entry that is a number', { variables: ['a', 7] }, /entry 1 is neither a name nor an object/],
    ['a map entry that is text', { variables: { course: 'hunter2-value' } }, /"course" is not an object/],
    ['required that is neither true nor false', { variables: [{ name: 'a', required: 1 }] }, /"required" as true or false/],
    ['a label that is an object', { variables: [{ name: 'a', label: { en: 'A' } }] }, /"label" as text/],
    ['a map entry with an empty name', { variables: { ' ': {} } }, /a variable with an empty name/],
  ])('%s: UNEXPECTED_RESPONSE naming what came back, never its values', (_name, fields, message) => {
    let error: unknown;
    try {
      readVariables({ id: 'd1', ...fields } as never, context);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CertificateServiceError);
    const e = error as CertificateServiceError;
    expect(e).toMatchObject({ code: 'UNEXPECTED_RESPONSE', phase: 'response', status: 200 });
    expect(e.message).toMatch(message);
    expect(e.message).toContain('design d1');
    expect(JSON.stringify(e.toJSON())).not.toContain('hunter2');
  });
});

describe('client.getBatchVariables', () => {
  const batch = { id: 'batch_1', title: 'T', designId: 'design_b', status: 'active' };

  test('reads the design of the batch, paging GET /designs until it is found', async () => {
    const scope = nock(BASE)
      .get('/api/v1/batches/batch_1').reply(200, batch)
      .get('/api/v1/designs').reply(200, { data: [{ id: 'design_a', variables: 42 }], nextCursor: 'p2' })
      .get('/api/v1/designs?cursor=p2').reply(200, { data: [{ id: 'design_b', variables: [{ name: 'course', required: true }, 'score'] }], nextCursor: null });
    const { client } = makeClient();
    // design_a's unreadable variables do not matter: only the batch's design is read.
    await expect(client.getBatchVariables('batch_1')).resolves.toEqual({
      batchId: 'batch_1',
      designId: 'design_b',
      source: 'design',
      variables: [v('course', { required: true }), v('score')],
    });
    scope.done();
  });

  test('a design that says nothing: the names in the batch\'s most recent certificates, "seen"', async () => {
    const scope = nock(BASE)
      .get('/api/v1/batches/batch_1').reply(200, batch)
      .get('/api/v1/designs').reply(200, [{ id: 'design_b', name: 'B' }])
      .get('/api/v1/batches/batch_1/recipients?limit=100')
      .reply(200, { data: [recipient(2, { data: { course: 'x', hours: '3' } }), recipient(1, { data: { course: 'y', grade: 'A' } })], nextCursor: 'more' });
    const { client } = makeClient();
    const result = await client.getBatchVariables('batch_1');
    expect(result.source).toBe('seen');
    expect(result.variables).toEqual(['course', 'hours', 'grade'].map((n) => ({ name: n, label: n, required: false, source: 'seen' })));
    scope.done(); // one page only, though the list says more follow
  });

  test('a design missing from the list and an empty batch: source none', async () => {
    nock(BASE)
      .get('/api/v1/batches/batch_1').reply(200, batch)
      .get('/api/v1/designs').reply(200, { data: [{ id: 'other' }], hasMore: false })
      .get('/api/v1/batches/batch_1/recipients?limit=100').reply(200, { data: [] });
    const { client } = makeClient();
    await expect(client.getBatchVariables('batch_1')).resolves.toEqual({ batchId: 'batch_1', designId: 'design_b', source: 'none', variables: [] });
  });

  test('an unreadable design is an error from the call path, redacted, not "no variables"', async () => {
    nock(BASE)
      .get('/api/v1/batches/batch_1').reply(200, batch)
      .get('/api/v1/designs').reply(200, { data: [{ id: 'design_b', fields: { [KEY]: 'x' } }] });
    const { client } = makeClient();
    const error = await client.getBatchVariables('batch_1').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', phase: 'response', detail: { endpoint: 'GET /designs' } });
    expect(JSON.stringify((error as CertificateServiceError).toJSON())).not.toContain(KEY);
  });

  test('an empty batch ID fails before any request', async () => {
    const { client } = makeClient();
    await expect(client.getBatchVariables(' ')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', phase: 'validation', field: 'batchId' });
  });
});

describe('checkRequiredVariables', () => {
  const vars = [v('course', { required: true, label: 'Course' }), v('score'), v('date', { required: true })];

  test('all required given: passes', () => {
    expect(() => checkRequiredVariables(vars, { course: 'Welding', date: '2026-01-01' })).not.toThrow();
  });

  test.each([
    ['missing', { date: 'x' }, 'data.course'],
    ['blank', { course: '  ', date: 'x' }, 'data.course'],
    ['null', { course: 'x', date: null }, 'data.date'],
  ])('%s: VALIDATION_ERROR naming data.<name>', (_n, data, field) => {
    let error: CertificateServiceError | undefined;
    try {
      checkRequiredVariables(vars, data);
    } catch (e) {
      error = e as CertificateServiceError;
    }
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', phase: 'validation', field });
    expect(error?.message).toContain(`"${field}"`);
  });

  test('the message lists every empty required variable', () => {
    expect(() => checkRequiredVariables(vars, undefined)).toThrow('Invalid "data.course": "Course" is required by the certificate design and is empty (also required and empty: data.date)');
  });

  test('partial (update): only variables given empty count', () => {
    expect(() => checkRequiredVariables(vars, { score: '1' }, { partial: true })).not.toThrow();
    expect(() => checkRequiredVariables(vars, { date: '' }, { partial: true })).toThrow('"data.date"');
  });
});

describe('issueMany with the batch\'s variables', () => {
  const vars = new Map([['batch_1', [v('course', { required: true })]]]);

  test('an item missing a required variable fails alone and is not sent; shared data counts', async () => {
    const scope = nock(API.replace('/api/v1', ''))
      .post('/api/v1/batches/batch_1/recipients', (body) => body.email === 'a@example.com' && body.data.course === 'Shared')
      .reply(201, recipient(1));
    const { client } = makeClient();
    const outcomes = await client.issueMany(
      [
        { batchId: 'batch_1', name: 'A', email: 'a@example.com' },
        { batchId: 'batch_1', name: 'B', email: 'b@example.com', data: { course: '' } },
      ], { skipExisting: false, data: { course: 'Shared' }, variables: vars },);
    expect(outcomes[0].ok).toBe(true);
    expect(outcomes[1]).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', field: 'data.course' } });
    scope.done();
  });

  test('with stopOnInvalid: the item ends invalid naming the variable, the others are not sent, no request', async () => {
    const { client } = makeClient();
    const outcomes = await client.issueMany(
      [
        { batchId: 'batch_1', name: 'A', email: 'a@example.com', data: { course: 'Maths' } },
        { batchId: 'batch_1', name: 'B', email: 'b@example.com' },
      ],
      { skipExisting: false, variables: vars, stopOnInvalid: true },
    );
    expect(outcomes[1]).toMatchObject({ kind: 'invalid', error: { code: 'VALIDATION_ERROR', field: 'data.course' } });
    expect(outcomes[0]).toMatchObject({ kind: 'notSent', reason: 'stopOnInvalid', because: 1 });
  });
});
