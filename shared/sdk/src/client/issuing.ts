import { bulkOutcomes, type ItemOutcome } from '../bulk';
import { one } from '../decode';
import type { IssueInput, Recipient } from '../types';
import { validateBulkSize, validateIssue } from '../validation';
import { validationError } from '../errors';
import { seg, type Api } from './api';

/** A recipient after validation: what goes on the wire. */
export type ValidRecipient = { name: string; email: string; data: Record<string, string> };

const issued = one<Recipient>('the issued certificate', ['recipient', 'certificate']);

/** Issues one certificate (uses one quota unit). Never retried after an unknown outcome. */
export async function issueCertificate(api: Api, batchId: string, input: IssueInput, options: { send?: boolean } = {}): Promise<Recipient> {
  seg(batchId, 'batchId');
  return await issueOne(api, batchId, validateIssue(input), options.send);
}

export async function issueOne(api: Api, batchId: string, recipient: ValidRecipient, send: boolean | undefined): Promise<Recipient> {
  const path = `/batches/${seg(batchId, 'batchId')}/recipients`;
  const body = { ...recipient, ...(send !== undefined ? { send: !!send } : {}) };
  return await api.call({ method: 'POST', route: '/batches/{batchId}/recipients', path, body, recipients: [recipient.email] }, issued);
}

/**
 * One bulk call of at most 100. Returns each item's recipient or error, in input order.
 * Request body (not shown in the spec; our documented default): `{recipients: [...], send?}`.
 */
export async function bulkIssue(api: Api, batchId: string, inputs: IssueInput[], options: { send?: boolean } = {}): Promise<ItemOutcome[]> {
  seg(batchId, 'batchId');
  if (!Array.isArray(inputs)) throw validationError('recipients', 'must be a list of recipients');
  validateBulkSize(inputs.length);
  const recipients = inputs.map((r, i) => validateIssue(r, `recipients[${i}].`));
  return await issueBulk(api, batchId, recipients, options.send);
}

export async function issueBulk(api: Api, batchId: string, recipients: ValidRecipient[], send: boolean | undefined): Promise<ItemOutcome[]> {
  const path = `/batches/${seg(batchId, 'batchId')}/recipients/bulk`;
  const emails = recipients.map((r) => r.email);
  const body = { recipients, ...(send !== undefined ? { send: !!send } : {}) };
  return await api.call({ method: 'POST', route: '/batches/{batchId}/recipients/bulk', path, body, recipients: emails }, bulkOutcomes(emails));
}
