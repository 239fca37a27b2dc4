// Errors that say where they failed (issue 10, item 3): `phase`, the getters, and the one
// user-facing hint, for every way a call can fail. Table-driven over a scripted transport.
import { CertificateServiceError, type ErrorPhase } from '@certificate-service/sdk/core';
import { recipient } from './helpers';
import { netError, reply, scripted, type Step } from './scripted';

type Call = (s: ReturnType<typeof scripted>) => Promise<unknown>;
const issue: Call = (s) => s.client.issueCertificate('batch_1', { name: 'Ada', email: 'ada@example.com' });
const get: Call = (s) => s.client.getBatch('batch_1');

async function failure(steps: Step[], call: Call): Promise<CertificateServiceError> {
  const s = scripted(steps);
  const error = await call(s).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CertificateServiceError);
  return error as CertificateServiceError;
}

interface Row {
  name: string;
  steps: Step[];
  call: Call;
  phase: ErrorPhase;
  code: string;
  flags: Partial<Record<'isNotFound' | 'isAuthError' | 'isRateLimited' | 'outcomeUnknown', true>>;
  hint: RegExp | '';
}

const fiveTimes = (step: () => Step) => Array.from({ length: 6 }, step);
const rows: Row[] = [
  { name: 'bad input, never sent', steps: [], call: (s) => s.client.issueCertificate('batch_1', { name: 'Ada', email: 'nope' }), phase: 'validation', code: 'VALIDATION_ERROR', flags: {}, hint: '' },
  { name: 'empty id, never sent', steps: [], call: (s) => s.client.getBatch(' '), phase: 'validation', code: 'VALIDATION_ERROR', flags: {}, hint: '' },
  { name: '400 from the service', steps: [reply(400, { error: 'VALIDATION_ERROR', message: 'bad', detail: { field: 'email' } })], call: issue, phase: 'response', code: 'VALIDATION_ERROR', flags: {}, hint: '' },
  { name: '404 with its code', steps: [reply(404, { error: 'NOT_FOUND', message: 'no batch' })], call: get, phase: 'response', code: 'NOT_FOUND', flags: { isNotFound: true }, hint: '' },
  { name: '410 with no body', steps: [reply(410, '')], call: get, phase: 'response', code: 'NOT_FOUND', flags: { isNotFound: true }, hint: '' },
  { name: '401 INVALID_API_KEY', steps: [reply(401, { error: 'INVALID_API_KEY', message: 'no' })], call: get, phase: 'response', code: 'INVALID_API_KEY', flags: { isAuthError: true }, hint: /^Copy the whole key again, or make a new one under Settings → API keys/ },
  { name: '401 EXPIRED_API_KEY', steps: [reply(401, { error: 'EXPIRED_API_KEY', message: 'old' })], call: get, phase: 'response', code: 'EXPIRED_API_KEY', flags: { isAuthError: true }, hint: /^Make a new key under Settings → API keys/ },
  { name: '401 MISSING_API_KEY', steps: [reply(401, { error: 'MISSING_API_KEY', message: 'none' })], call: get, phase: 'response', code: 'MISSING_API_KEY', flags: { isAuthError: true }, hint: /^Keys are made under Settings → API keys/ },
  {
    name: '429 after the retries, with the limit the service reported',
    steps: fiveTimes(() => reply(429, { error: 'RATE_LIMITED', message: 'slow' }, { 'Retry-After': '7', 'RateLimit-Limit': '60', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '7' })),
    call: get,
    phase: 'response',
    code: 'RATE_LIMITED',
    flags: { isRateLimited: true },
    hint: /allows 60 requests per minute per API key\. Try again in 7 s/,
  },
  { name: '5xx to a GET, after the retries', steps: fiveTimes(() => reply(503, '')), call: get, phase: 'response', code: 'UNKNOWN', flags: {}, hint: '' },
  { name: 'network error on a GET, after the retries', steps: fiveTimes(() => netError('ECONNRESET')), call: get, phase: 'request', code: 'NETWORK_ERROR', flags: {}, hint: '' },
  { name: 'network error on an issue POST', steps: [netError('ECONNRESET')], call: issue, phase: 'request', code: 'NETWORK_ERROR', flags: { outcomeUnknown: true }, hint: /not repeated, so nothing is applied twice/ },
  { name: 'timeout on an issue POST', steps: [netError('ETIMEDOUT')], call: issue, phase: 'request', code: 'TIMEOUT', flags: { outcomeUnknown: true }, hint: /not repeated/ },
  { name: 'network error on an issue POST: the hint is about issuing', steps: [netError('ECONNRESET')], call: issue, phase: 'request', code: 'NETWORK_ERROR', flags: { outcomeUnknown: true }, hint: /Check the batch before issuing again: issuing the same list again, skipping the emails already in the batch/ },
  { name: 'network error on a send POST: the hint is not about issuing', steps: [netError('ECONNRESET')], call: (s) => s.client.sendCertificate('batch_1', 'rec_1'), phase: 'request', code: 'NETWORK_ERROR', flags: { outcomeUnknown: true }, hint: /^It was not repeated, so nothing is applied twice\. Check whether it took effect before trying again\.$/ },
  { name: '502 to an issue POST', steps: [reply(502, '<html>Bad gateway</html>')], call: issue, phase: 'request', code: 'UNKNOWN', flags: { outcomeUnknown: true }, hint: /not repeated/ },
];

test.each(rows)('$name → phase $phase, $code', async (row) => {
  const error = await failure(row.steps, row.call);
  expect(error.phase).toBe(row.phase);
  expect(error.code).toBe(row.code);
  for (const flag of ['isNotFound', 'isAuthError', 'isRateLimited', 'outcomeUnknown'] as const) {
    expect([flag, error[flag]]).toEqual([flag, row.flags[flag] === true]);
  }
  if (row.hint === '') expect(error.hint).toBe('');
  else expect(error.hint).toMatch(row.hint);
  expect(error.toJSON()).toMatchObject({ code: row.code, phase: row.phase });
  // The hint is not also written into the message: it is said once.
  if (error.hint) expect(error.message).not.toContain(error.hint.slice(0, 30));
});

test('a validation error was never sent: no request at all', async () => {
  const s = scripted([]);
  await expect(s.client.createBatch({ title: '', designId: 'd' })).rejects.toMatchObject({ phase: 'validation', status: 0 });
  expect(s.requests).toHaveLength(0);
});

test('per-item outcomes of a bulk call: the service answered (response), or the item is unaccounted for (request, outcome unknown)', async () => {
  const s = scripted([reply(200, { results: [{ index: 0, recipient: recipient(0) }, { index: 1, error: { code: 'CONFLICT', message: 'dup' } }] })]);
  const outcomes = await s.client.issueBulk('batch_1', [0, 1, 2].map((i) => ({ name: `P${i}`, email: `p${i}@example.com` })));
  expect(outcomes[0].ok).toBe(true);
  const [, second, third] = outcomes.map((o) => (o.ok ? undefined : o.error));
  expect(second).toMatchObject({ phase: 'response', code: 'CONFLICT', outcomeUnknown: false });
  expect(third).toMatchObject({ phase: 'request', outcomeUnknown: true });
  expect(third!.hint).toMatch(/not repeated/);
});

test('a bulk call rejected for one item: the others carry its phase and say they were not issued', async () => {
  const s = scripted([reply(422, { error: 'VALIDATION_ERROR', message: 'bad email', detail: { index: 1, field: 'email' } })]);
  const outcomes = await s.client.issueMany([0, 1, 2].map((i) => ({ batchId: 'batch_1', name: `P${i}`, email: `p${i}@example.com` })), { skipExisting: false, variables: false });
  const errors = outcomes.map((o) => (o.ok ? undefined : o.error)!);
  expect(errors.map((e) => e.phase)).toEqual(['response', 'response', 'response']);
  expect(errors[0].message).toMatch(/not issued, because the bulk call was rejected for item 1/);
});

test('isNotFound is one rule: NOT_FOUND, or a 404/410 answer whatever its code', () => {
  expect(new CertificateServiceError({ code: 'NOT_FOUND', message: 'x' }).isNotFound).toBe(true);
  expect(new CertificateServiceError({ code: 'GONE', status: 410, message: 'x' }).isNotFound).toBe(true);
  expect(new CertificateServiceError({ code: 'NOT_FOUND_ISH', status: 404, message: 'x' }).isNotFound).toBe(true);
  expect(new CertificateServiceError({ code: 'CONFLICT', status: 409, message: 'x' }).isNotFound).toBe(false);
});

test('the rate-limit hint falls back to the documented 120 a minute, and to "in a minute" without Retry-After', () => {
  const error = new CertificateServiceError({ code: 'RATE_LIMITED', status: 429, message: 'slow' });
  expect(error.hint).toBe('The rate limit was reached: the service allows 120 requests per minute per API key. Try again in a minute, or spread the work out.');
});

// The message says what happened, the hint what to do: the user does not read the same thing twice.
test.each<[string, Record<string, string>]>([
  ['INVALID_API_KEY', {}],
  ['INVALID_API_KEY', { message: 'The API key is not recognized. Check that it was copied in full.' }],
  ['EXPIRED_API_KEY', {}],
  ['MISSING_API_KEY', {}],
])('%s %j: message and hint share no sentence', async (code, body) => {
  const s = scripted([reply(401, { error: code, ...body })]);
  const error = (await s.client.getBatch('b1').catch((e: unknown) => e)) as CertificateServiceError;
  const words = (text: string) => new Set(text.toLowerCase().match(/[a-z]{5,}/g) ?? []);
  const shared = [...words(error.message)].filter((w) => words(error.hint).has(w) && !['service', 'certificate'].includes(w));
  expect(shared).toEqual([]);
});
