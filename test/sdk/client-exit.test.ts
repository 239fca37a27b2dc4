import { inspect } from 'node:util';
import { CertificateServiceClient, CertificateServiceError } from '@certificate-service/sdk/core';

// The client's one exit (client/index.ts #exit) awaits the promise a resource function returns, so the
// function must be `async`: a check that threw synchronously would leave the client unredacted,
// or as a throw where a promise is expected. Every method is called here with inputs that fail
// (no arguments, and the key itself as every argument) against a service that echoes the key:
// each fails with a CertificateServiceError (a missing argument names its field, never a
// TypeError) that carries no piece of the key. Only the iterators may throw at once: their
// checks run when the iterator is made.

const KEY = 'sk_live_exit_9f8e7d6c5b4a39281706';
const PIECES = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8));

function client(): CertificateServiceClient {
  return new CertificateServiceClient({
    baseUrl: 'https://certs.exit.test',
    apiKey: KEY,
    retry: { maxRetries: 0 },
    sleep: async () => {},
    transport: async () => ({ status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'VALIDATION_ERROR', message: `bad key ${KEY}`, detail: { key: KEY } } }),
  });
}

/** Every public method, read from the class itself: a method added later is covered too. */
const METHODS = Object.getOwnPropertyNames(CertificateServiceClient.prototype).filter((name) => {
  const d = Object.getOwnPropertyDescriptor(CertificateServiceClient.prototype, name)!;
  return name !== 'constructor' && name !== 'check' && typeof d.value === 'function';
});

async function settle(result: unknown): Promise<unknown> {
  if (result && typeof (result as AsyncGenerator).next === 'function') return await (result as AsyncGenerator).next();
  return await result;
}

const INPUTS: Array<[string, unknown[]]> = [
  ['nothing', []],
  ['the key as every argument', [KEY, KEY, KEY, KEY]],
];

it('covers the methods it should (a sanity check of the list)', () => {
  expect(METHODS).toEqual(expect.arrayContaining(['auth', 'getBatch', 'issueMany', 'issueBulk', 'issueCertificate', 'previewIssue', 'pollCertificates', 'iterateRecipients', 'rotateSubscriptionSecret']));
  expect(METHODS.length).toBeGreaterThanOrEqual(30);
});

describe.each(INPUTS)('with %s', (_, args) => {
  it.each(METHODS)('%s never throws synchronously, and what it rejects with carries no key', async (name) => {
    const c = client();
    const method = (c as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
    let result: unknown;
    let error: unknown;
    try {
      result = method.apply(c, args);
    } catch (thrown) {
      if (!name.startsWith('iterate')) throw new Error(`${name} threw at once instead of returning a promise that rejects: ${String(thrown)}`);
      error = thrown;
    }
    if (!error) {
      try {
        await settle(result);
      } catch (thrown) {
        error = thrown;
      }
    }
    expect(error).toBeInstanceOf(CertificateServiceError);
    const text = [String((error as Error).message), JSON.stringify(error), inspect(error, { depth: 8 })].join('\n');
    expect(PIECES.filter((piece) => text.includes(piece))).toEqual([]);
  });
});
