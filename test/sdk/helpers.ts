import { CertificateServiceClient, type ClientOptions } from '@certificate-service/sdk/core';
import { createFetchTransport } from '../../shared/sdk/src/fetch-transport';
import { recipientFixture } from '../support/recipient';

import { API_KEY, BASE_URL, ORIGIN } from '../support/service';

export const BASE = ORIGIN;
export const API = BASE_URL;
export const KEY = API_KEY;

/** A client on the real fetch transport (nock intercepts it), with no real waiting. */
export function makeClient(overrides: Partial<ClientOptions> = {}) {
  const sleeps: number[] = [];
  const client = new CertificateServiceClient({
    baseUrl: BASE,
    apiKey: KEY,
    transport: createFetchTransport(),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { client, sleeps };
}

export function recipient(i: number, extra: Record<string, unknown> = {}) {
  return recipientFixture(i, { email: `p${i}@example.com`, issueDate: '2026-11-22T00:00:00.000Z', createdAt: '2026-11-22T00:00:00.000Z', ...extra }, BASE);
}
