import { action, one } from '../decode';
import { MAX_PAGE_SIZE } from '../pagination';
import type { ActionResult, Page, Recipient, RecipientChange, RecipientUpdate } from '../types';
import { requireEmail, requireString, validateUpdate } from '../validation';
import { page, type Api } from './api';
import { ENDPOINTS } from './endpoints';
import { iterateList, listPage as readPage, type ListOptions, type ListSpec } from './list';

export interface RecipientListOptions extends ListOptions {
  emailStatus?: string;
}

const recipient = one<Recipient>('a certificate', ['recipient', 'certificate'], ['id', 'email']);

/** The key of the one email index: trimmed and lower-cased, as the service compares them. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

/**
 * A batch's certificates. The recipient list's pagination parameter names are not shown; we send
 * the batch list's documented `cursor` and `limit`. Every item must have its email, because
 * skip-existing and find-by-email decide on it.
 */
function recipientList(batchId: string, emailStatus: string | undefined): ListSpec<Recipient> {
  return {
    endpoint: ENDPOINTS.listRecipients,
    params: { batchId },
    noun: 'certificates',
    defaultLimit: MAX_PAGE_SIZE,
    filters: { emailStatus },
    itemCheck: (r) => (typeof r.email === 'string' ? undefined : 'has no "email"'),
  };
}

/** One page of a batch's certificates, as decoded (polling reads its cursor and `Date`). */
export async function listPage(api: Api, batchId: string, options: RecipientListOptions) {
  return await readPage(api, recipientList(batchId, options.emailStatus), options);
}

export async function listRecipients(api: Api, batchId: string, options: RecipientListOptions = {}): Promise<Page<Recipient>> {
  return page(await listPage(api, batchId, options));
}

export function iterateRecipients(api: Api, batchId: string, options: Omit<RecipientListOptions, 'cursor'> = {}): AsyncGenerator<Recipient> {
  requireString(batchId, 'batchId'); // when the iterator is made, naming the field
  return iterateList(api, recipientList(batchId, options.emailStatus), { limit: options.limit });
}

export async function getRecipient(api: Api, batchId: string, recipientId: string): Promise<Recipient> {
  return await api.call({ endpoint: ENDPOINTS.getRecipient, params: { batchId, recipientId } }, recipient);
}

/**
 * The certificate issued to `email` in a batch (case-insensitive), or null. The list has no
 * email filter, so pages are read until the first match; null only after every page was read.
 */
export async function findRecipientByEmail(api: Api, batchId: string, email: string): Promise<Recipient | null> {
  requireString(batchId, 'batchId');
  const wanted = emailKey(requireEmail(email));
  for await (const r of iterateRecipients(api, batchId)) if (emailKey(r.email) === wanted) return r;
  return null;
}

/**
 * The email index: a batch's certificates by `emailKey`, in one paged read (100 a page). A
 * host that looks up many emails in one run, and the issue plan's skip-existing, read the batch once.
 */
export async function recipientsByEmail(api: Api, batchId: string): Promise<Map<string, Recipient[]>> {
  const index = new Map<string, Recipient[]>();
  for await (const r of iterateRecipients(api, batchId)) {
    const list = index.get(emailKey(r.email));
    if (list) list.push(r);
    else index.set(emailKey(r.email), [r]);
  }
  return index;
}

/** Request body (not shown in the spec; our documented default): only the fields to change. */
export async function updateRecipient(api: Api, batchId: string, recipientId: string, update: RecipientUpdate): Promise<RecipientChange> {
  const body = validateUpdate(update);
  const known: RecipientChange = { id: recipientId, batchId };
  return await api.call({ endpoint: ENDPOINTS.updateRecipient, params: { batchId, recipientId }, body }, action(known));
}

export async function deleteRecipient(api: Api, batchId: string, recipientId: string): Promise<ActionResult> {
  return await api.call({ endpoint: ENDPOINTS.deleteRecipient, params: { batchId, recipientId } }, action({ id: recipientId, batchId, deleted: true }));
}

export async function sendCertificate(api: Api, batchId: string, recipientId: string): Promise<ActionResult> {
  return await api.call({ endpoint: ENDPOINTS.sendCertificate, params: { batchId, recipientId } }, action({ id: recipientId, batchId, queued: true }));
}
