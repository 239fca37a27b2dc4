import { CertificateServiceClient, type ClientOptions } from '@certificate-service/sdk/core';
import { createFetchTransport } from '../../shared/sdk/src/fetch-transport';

export const BASE = 'https://certs.example.com';
export const API = `${BASE}/api/v1`;
export const KEY = 'sk_live_test_key_123456';

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
  return {
    id: `rec_${i}`,
    batchId: 'batch_1',
    name: `Person ${i}`,
    email: `p${i}@example.com`,
    certificateId: `CERT-2026-0001-${String(i).padStart(4, '0')}`,
    shareToken: `tok${i}`,
    certUrl: `${BASE}/v/tok${i}`,
    issueDate: '2026-11-22T00:00:00.000Z',
    expiryDate: null,
    data: {},
    emailStatus: 'not_sent',
    emailSentAt: null,
    createdAt: '2026-11-22T00:00:00.000Z',
    ...extra,
  };
}
