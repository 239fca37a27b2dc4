import type { Bundle, HttpRequestOptions, ZObject } from 'zapier-platform-core';
import { CertificateServiceClient, type RetryOptions, type Transport } from '@certificate-service/sdk/core';
import { toZapierError, type ErrorContext } from './errors';

/**
 * A Zapier step has a time limit, so the core waits little on Zapier: a 429 whose
 * Retry-After is longer than `maxWaitMs` surfaces at once and becomes a ThrottledError
 * (Zapier then retries the whole step later instead of the step sleeping).
 */
export const ZAPIER_RETRY: RetryOptions = { maxRetries: 2, maxWaitMs: 5_000, baseDelayMs: 250 };

/**
 * Zapier stops a create, search or trigger 30 s after it starts ("Create/search action:
 * request(s) + scripting: 30 seconds", docs.zapier.com/platform/build/operating-constraints),
 * and z.request itself never gives up: zapier-platform-core 19.1.0 hands node-fetch 2.7.0 no
 * timeout (its default, 0, is none). An issue call still unanswered when Zapier stopped the step
 * was never reported as an unknown outcome, so nothing marked it and a replay issued it again.
 * So every request of a step ends by REQUEST_DEADLINE_MS after the step started: an issue call
 * without an answer by then is an unknown outcome (a TIMEOUT), and the 6 s left are for marking
 * it (lost-answer.ts gives its z.cache write 4 s) and failing the step before Zapier stops it.
 */
export const ZAPIER_STEP_LIMIT_MS = 30_000;
export const REQUEST_DEADLINE_MS = 24_000;

/** Options z.request honours that its typings do not list. */
type ZRequestOptions = HttpRequestOptions & {
  url: string;
  /** Passed on to node-fetch, which stops the request (and the read of its body) when it fires. */
  signal?: AbortSignal;
  /** false: a 429 reaches the core instead of becoming Zapier's own ThrottledError first. */
  throwForThrottlingEarly?: boolean;
  /** false: no requestTemplate merge and no `{{bundle.*}}` check on bodies that carry user data. */
  merge?: boolean;
};

/**
 * The core's Transport over z.request (so Zapier logs every call and runs our
 * beforeRequest middleware, which adds the Bearer token). It resolves for every
 * status: the core maps errors, retries what is safe and paces itself. Every request
 * is stopped at `deadline` (epoch ms), with an error the core reads as a timeout.
 */
export function zapierTransport(z: ZObject, deadline: number): Transport {
  return async (request) => {
    const signal = AbortSignal.timeout(Math.max(deadline - Date.now(), 0));
    // The core's request is already {method, url, headers, body?}: only Zapier's switches are added.
    const options: ZRequestOptions = { ...request, skipThrowForStatus: true, throwForThrottlingEarly: false, merge: false, signal };
    let response: Awaited<ReturnType<ZObject['request']>>;
    try {
      response = await z.request(options);
    } catch (error) {
      // node-fetch says "The user aborted a request.": say what stopped it instead.
      if (!signal.aborted) throw error;
      throw Object.assign(new Error(`no answer by ${REQUEST_DEADLINE_MS / 1000} s into the step, which Zapier stops at ${ZAPIER_STEP_LIMIT_MS / 1000} s`), { name: 'TimeoutError' });
    }
    // node-fetch's Headers: the core reads it as it is.
    return { status: response.status, headers: response.headers, body: response.content };
  };
}

/**
 * A core client for this connection, for one step that started at `startedAt` (epoch ms; its
 * requests end by REQUEST_DEADLINE_MS after it). Throws VALIDATION_ERROR for a bad base URL.
 */
export function clientFor(z: ZObject, bundle: Pick<Bundle, 'authData'>, startedAt = Date.now()): CertificateServiceClient {
  const { apiKey, baseUrl } = bundle.authData ?? {};
  return new CertificateServiceClient({
    baseUrl,
    transport: zapierTransport(z, startedAt + REQUEST_DEADLINE_MS),
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
