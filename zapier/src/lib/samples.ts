// Static samples and output field labels, shared by the operations that return the
// same resource. Dates are ISO 8601 UTC, as the service sends them; a date field is
// never null here (see outputItem).
import type { Batch, Recipient } from '@certificate-service/sdk/core';

export const SAMPLE_RECIPIENT: Recipient = {
  id: 'rec_8f2k1m4q',
  batchId: 'batch_3xy9w2',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  certificateId: 'CERT-2025-000123-4567',
  shareToken: 'tok_4b7c9e1d',
  certUrl: 'https://certs.example.com/v/tok_4b7c9e1d',
  issueDate: '2025-06-02T09:15:00.000Z',
  expiryDate: '2027-06-02T09:15:00.000Z',
  data: { course: 'Introduction to Analytics', score: '92' },
  emailStatus: 'sent',
  emailSentAt: '2025-06-02T09:15:04.000Z',
  createdAt: '2025-06-02T09:15:00.000Z',
};

export const SAMPLE_BATCH: Batch = {
  id: 'batch_3xy9w2',
  title: 'Spring 2025 Graduates',
  designId: 'design_classic',
  status: 'active',
  createdAt: '2025-06-01T08:00:00.000Z',
};

export type OutputField = { key: string; label: string; type?: 'string' | 'datetime' | 'boolean' | 'integer' };

/**
 * An item as the app returns it: a field declared `datetime` that is null (no expiry
 * date, an email not sent yet) is left out, because Zapier reads a `datetime` field as
 * a date. Keys nested with `__` (Zapier's flattening, e.g. `viewer__viewedAt`) are
 * followed one level down.
 */
export function outputItem<T extends object>(item: T, fields: readonly OutputField[]): T {
  const out = { ...item } as Record<string, unknown>;
  for (const { key, type } of fields) {
    if (type !== 'datetime') continue;
    const [head, child] = key.split('__');
    const parent = out[head];
    if (child === undefined) {
      if (parent === null) delete out[head];
    } else if (parent && typeof parent === 'object' && (parent as Record<string, unknown>)[child] === null) {
      const { [child]: _null, ...rest } = parent as Record<string, unknown>;
      out[head] = rest;
    }
  }
  return out as T;
}

/** The recipient's own fields except `id` and `createdAt`, which events rename. */
const RECIPIENT_COMMON_FIELDS: OutputField[] = [
  { key: 'batchId', label: 'Batch ID', type: 'string' },
  { key: 'name', label: 'Recipient Name', type: 'string' },
  { key: 'email', label: 'Recipient Email', type: 'string' },
  { key: 'certificateId', label: 'Certificate ID', type: 'string' },
  { key: 'shareToken', label: 'Share Token', type: 'string' },
  { key: 'certUrl', label: 'Certificate URL', type: 'string' },
  { key: 'issueDate', label: 'Issue Date', type: 'datetime' },
  { key: 'expiryDate', label: 'Expiry Date', type: 'datetime' },
  { key: 'emailStatus', label: 'Email Status', type: 'string' },
  { key: 'emailSentAt', label: 'Email Sent At', type: 'datetime' },
];

export const RECIPIENT_OUTPUT_FIELDS: OutputField[] = [
  { key: 'id', label: 'Recipient ID', type: 'string' },
  ...RECIPIENT_COMMON_FIELDS,
  { key: 'createdAt', label: 'Created At', type: 'datetime' },
];

/** The flat event item (the core's flattenEvent): envelope fields plus the recipient's. */
export const EVENT_OUTPUT_FIELDS: OutputField[] = [
  { key: 'id', label: 'Event ID', type: 'string' },
  { key: 'type', label: 'Event Type', type: 'string' },
  { key: 'createdAt', label: 'Event Time', type: 'datetime' },
  { key: 'recipientId', label: 'Recipient ID', type: 'string' },
  ...RECIPIENT_COMMON_FIELDS,
  { key: 'recipientCreatedAt', label: 'Recipient Created At', type: 'datetime' },
];

export const BATCH_OUTPUT_FIELDS: OutputField[] = [
  { key: 'id', label: 'Batch ID', type: 'string' },
  { key: 'title', label: 'Batch Title', type: 'string' },
  { key: 'designId', label: 'Design ID', type: 'string' },
  { key: 'status', label: 'Batch Status', type: 'string' },
  { key: 'createdAt', label: 'Created At', type: 'datetime' },
];
