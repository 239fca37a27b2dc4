import type { Recipient } from '@certificate-service/sdk/core';
import { ORIGIN } from './service';

/**
 * The one recipient fixture: all 13 fields of the spec's recipient (section 2), numbered so
 * that ids, certificate ids and share tokens are unique per `n`. Each test layer names its
 * people its own way through `overrides`; the shape lives here only.
 */
export function recipientFixture(n: number, overrides: Partial<Recipient> | Record<string, unknown> = {}, origin = ORIGIN): Recipient {
  return {
    id: `rec_${n}`,
    batchId: 'batch_1',
    name: `Person ${n}`,
    email: `person${n}@example.com`,
    certificateId: `CERT-2026-0001-${String(n).padStart(4, '0')}`,
    shareToken: `tok${n}`,
    certUrl: `${origin}/v/tok${n}`,
    issueDate: '2026-01-01T00:00:00.000Z',
    expiryDate: null,
    data: {},
    emailStatus: 'not_sent',
    emailSentAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  } as Recipient;
}
