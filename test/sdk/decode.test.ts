// The decoders, family by family (list, single, bulk, action), against known, unknown, empty,
// HTML and truncated bodies: a known shape is read, anything else is UNEXPECTED_RESPONSE that
// says what came back (status, content type, top-level keys) and never quotes a value.
import { bulkOutcomes } from '../../shared/sdk/src/issue/call';
import { action, describeList, listOf, one, type ResponseContext } from '../../shared/sdk/src/decode';
import { CertificateServiceError } from '@certificate-service/sdk/core';
import { recipient } from './helpers';

const ctx = (over: Partial<ResponseContext> = {}): ResponseContext => ({ endpoint: 'GET /things', status: 200, contentType: 'application/json', issues: false, ...over });
const items = [{ id: 'a', email: 'a@x.test' }, { id: 'b', email: 'b@x.test' }];
const truncated = '{"data": [{"id": "a", "email": "a@x.te'; // a body cut off mid-way: not JSON, so kept as text
const html = '<!doctype html><html><body>Sign in</body></html>';
const VALUE = 'value-that-must-not-be-quoted';

function refusal(run: () => unknown): CertificateServiceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CertificateServiceError);
    const e = error as CertificateServiceError;
    expect(e).toMatchObject({ code: 'UNEXPECTED_RESPONSE', phase: 'response', status: 200 });
    expect(JSON.stringify(e.toJSON())).not.toContain(VALUE);
    return e;
  }
  throw new Error('expected a refusal');
}

describe('list', () => {
  const read = listOf('things', { limit: 100 });
  test.each([
    ['bare array', items, '(array)', undefined, null],
    ['data + nextCursor', { data: items, nextCursor: 'c1' }, 'data', 'nextCursor', 'c1'],
    ['items + next_cursor (null)', { items, next_cursor: null }, 'items', 'next_cursor', null],
    ['results + cursor', { results: items, cursor: 'c1' }, 'results', 'cursor', 'c1'],
    ['named + next', { recipients: items, next: 'c1' }, 'recipients', 'next', 'c1'],
    ['pagination.nextCursor', { data: items, pagination: { nextCursor: 'c1' } }, 'data', 'pagination.nextCursor', 'c1'],
    ['meta.nextCursor', { data: items, meta: { nextCursor: null } }, 'data', 'meta.nextCursor', null],
    ['has_more false wins over a cursor', { data: items, next_cursor: 'c1', has_more: false }, 'data', 'next_cursor', null],
    ['numeric cursor', { data: items, next: 2 }, 'data', 'next', '2'],
  ])('known: %s', (_n, body, wrapper, cursorField, next) => {
    const page = read(body, ctx());
    expect(page.items).toEqual(items);
    expect(page.nextCursor).toBe(next);
    expect(page.shape).toMatchObject({ wrapper, ...(cursorField ? { cursorField } : {}) });
    expect(describeList(body)).toEqual(page.shape);
  });

  test('empty only when a known wrapper holds an empty array', () => {
    expect(read({ data: [], nextCursor: null }, ctx()).items).toEqual([]);
    expect(read([], ctx()).items).toEqual([]);
  });

  test.each([
    ['unknown wrapper', { entries: [{ id: VALUE }] }, /with an object with keys "entries", where a list of things was expected/],
    ['nested unknown wrapper', { payload: { rows: items } }, /keys "payload"/],
    ['empty body', null, /with an empty body/],
    ['empty object', {}, /with an empty object/],
    ['HTML page', html, /with an HTML page/],
    ['truncated JSON', truncated, /with text that is not JSON \(\d+ characters\)/],
    ['a wrapper key that is not a list', { data: { id: VALUE } }, /keys "data"/],
    ['an item with no id', { data: [{ name: VALUE }] }, /item 0 has no "id"/],
    ['an item that is not an object', [VALUE], /item 0 is not an object/],
  ])('refused: %s', (_n, body, message) => {
    const e = refusal(() => read(body, ctx({ contentType: typeof body === 'string' ? 'text/html' : 'application/json' })));
    expect(e.message).toMatch(/^GET \/things answered 200 \((text\/html|application\/json)\) with /);
    expect(e.message).toMatch(message);
    expect(e.outcomeUnknown).toBe(false);
  });

  test('a full page with no cursor and no end marker: read, with the error kept for whoever wants the rest', () => {
    const page = read(Array.from({ length: 100 }, (_, i) => ({ id: `r${i}` })), ctx());
    expect(page.items).toHaveLength(100);
    expect(page.nextCursor).toBeNull();
    expect(page.restUnknown).toMatchObject({ code: 'UNEXPECTED_RESPONSE', message: expect.stringMatching(/sign that this full page of 100 is the last/) });
    expect(read(Array.from({ length: 99 }, (_, i) => ({ id: `r${i}` })), ctx()).restUnknown).toBeUndefined();
  });

  test('an item check names what is missing', () => {
    const withEmail = listOf('certificates', { itemCheck: (r) => (typeof r.email === 'string' ? undefined : 'has no "email"') });
    expect(refusal(() => withEmail({ data: [{ id: 'r1' }], nextCursor: null }, ctx())).message).toMatch(/item 0 has no "email"/);
  });
});

describe('single resource', () => {
  const read = one<{ id: string }>('a certificate', ['certificate']);
  test.each([
    ['bare', { id: 'r1', email: 'a@x.test' }],
    ['under its name', { certificate: { id: 'r1' } }],
    ['under data', { data: { id: 'r1' } }],
  ])('known: %s', (_n, body) => expect(read(body, ctx()).id).toBe('r1'));

  test.each([
    ['{"status":"ok"}', { status: VALUE }, /an object with keys "status", where a certificate with "id" was expected/],
    ['an id that is not a string', { id: 7 }, /keys "id"/],
    ['empty body', null, /an empty body/],
    ['HTML page', html, /an HTML page/],
    ['truncated JSON', truncated, /text that is not JSON/],
    ['a list', [{ id: 'r1' }], /a list of 1/],
  ])('refused: %s', (_n, body, message) => expect(refusal(() => read(body, ctx())).message).toMatch(message));
});

describe('bulk', () => {
  const emails = ['a@x.test', 'b@x.test'];
  const issue = ctx({ endpoint: 'POST /batches/{batchId}/recipients/bulk', status: 201, issues: true });
  const read = bulkOutcomes(emails);
  test.each([
    ['bare array', [recipient(0), recipient(1)]],
    ['data', { data: [recipient(0), recipient(1)] }],
    ['results with index', { results: [{ index: 1, recipient: recipient(1) }, { index: 0, recipient: recipient(0) }] }],
  ])('known: %s', (_n, body) => expect(read(body, issue).map((o) => o.ok && o.recipient.id)).toEqual(['rec_0', 'rec_1']));

  test.each([
    ['unknown wrapper', { entries: [recipient(0)] }],
    ['empty body', null],
    ['HTML page', html],
    ['truncated JSON', truncated],
  ])('refused (the whole call, outcome unknown): %s', (_n, body) => {
    let error: unknown;
    try {
      read(body, issue);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', phase: 'response', status: 201, outcomeUnknown: true });
  });

  test('an entry that is neither a certificate nor an error leaves that item unknown, the others read', () => {
    const out = read({ data: [recipient(0), { index: 1, note: VALUE }] }, issue);
    expect(out[0].ok).toBe(true);
    expect(out[1]).toMatchObject({ ok: false, error: { code: 'UNEXPECTED_RESPONSE', outcomeUnknown: true } });
    expect(JSON.stringify(!out[1].ok && out[1].error.toJSON())).not.toContain(VALUE);
  });
});

describe('action (body not shown in the spec)', () => {
  const read = action({ id: 'r1', deleted: true });
  test.each([
    ['no body', null, { id: 'r1', deleted: true }],
    ['an object', { status: 'done' }, { id: 'r1', deleted: true, status: 'done' }],
    ['an object under data', { data: { status: 'done' } }, { id: 'r1', deleted: true, status: 'done' }],
  ])('known: %s', (_n, body, expected) => expect(read(body, ctx({ endpoint: 'DELETE /x' }))).toEqual(expected));

  test.each([
    ['HTML page', html, /an HTML page/],
    ['truncated JSON', truncated, /text that is not JSON/],
    ['a list', [1, 2], /a list of 2/],
  ])('refused: %s', (_n, body, message) => expect(refusal(() => read(body, ctx())).message).toMatch(message));
});
