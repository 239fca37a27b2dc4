import type { Bundle, HttpRequestOptions, ZObject } from 'zapier-platform-core';
import { CertificateServiceClient, type RetryOptions, type Transport } from '@certificate-service/sdk/core';
import { toZapierError, type ErrorContext } from './errors';

/**
 * A Zapier step has a time limit, so the core waits little on Zapier: a 429 whose
 * Retry-After is longer than `maxWaitMs` surfaces at once and becomes a ThrottledError
 * (Zapier then retries the whole step later instead of the step sleeping).
 */
export const ZAPIER_RETRY: RetryOptions = { maxRetries: 2, maxWaitMs: 5_000, baseDelayMs: 250 };

/** Options z.request honours that its typings do not list. */
type ZRequestOptions = HttpRequestOptions & {
  url: string;
  /** false: a 429 reaches the core instead of becoming Zapier's own ThrottledError first. */
  throwForThrottlingEarly?: boolean;
  /** false: no requestTemplate merge and no `{{bundle.*}}` check on bodies that carry user data. */
  merge?: boolean;
};

/**
 * The core's Transport over z.request (so Zapier logs every call and runs our
 * beforeRequest middleware, which adds the Bearer token). It resolves for every
 * status: the core maps errors, retries what is safe and paces itself.
 */
export function zapierTransport(z: ZObject): Transport {
  return async (request) => {
    // The core's request is already {method, url, headers, body?}: only Zapier's switches are added.
    const options: ZRequestOptions = { ...request, skipThrowForStatus: true, throwForThrottlingEarly: false, merge: false };
    const response = await z.request(options);
    // node-fetch's Headers: the core reads it as it is.
    return { status: response.status, headers: response.headers, body: response.content };
  };
}

/** A core client for this connection. Throws VALIDATION_ERROR for a bad base URL. */
export function clientFor(z: ZObject, bundle: Pick<Bundle, 'authData'>): CertificateServiceClient {
  const { apiKey, baseUrl } = bundle.authData ?? {};
  return new CertificateServiceClient({
    baseUrl,
    transport: zapierTransport(z),
    retry: ZAPIER_RETRY,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    // The key is added by beforeRequest; it is listed here only so error messages never carry it.
    secrets: apiKey ? [apiKey] : [],
  });
}

/**
 * Wraps an operation: builds the client and maps whatever it throws, once, in
 * errors.ts. Every trigger, create and search goes through here.
 */
export function withClient<B extends Pick<Bundle, 'authData'>, R>(
  fn: (client: CertificateServiceClient, z: ZObject, bundle: B) => Promise<R>,
  context: ErrorContext = {},
): (z: ZObject, bundle: B) => Promise<R> {
  return async (z, bundle) => {
    try {
      return await fn(clientFor(z, bundle), z, bundle);
    } catch (error) {
      throw toZapierError(z, error, context);
    }
  };
}
