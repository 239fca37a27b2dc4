import { action, listOf, one } from '../decode';
import { MAX_PAGE_SIZE, paginate } from '../pagination';
import type { ActionResult, Page, Recipient, RecipientChange, RecipientUpdate } from '../types';
import { requireEmail, validateLimit, validateUpdate } from '../validation';
import { page, seg, type Api } from './api';
import type { ListOptions } from './batches';

export interface RecipientListOptions extends ListOptions {
  emailStatus?: string;
}

const ROUTE = '/batches/{batchId}/recipients';
const ONE_ROUTE = `${ROUTE}/{recipientId}`;
const recipient = one<Recipient>('a certificate', ['recipient', 'certificate'], ['id', 'email']);
const onePath = (batchId: string, recipientId: string) => `/batches/${seg(batchId, 'batchId')}/recipients/${seg(recipientId, 'recipientId')}`;

/** The key of the one email index: trimmed and lower-cased, as the service compares them. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

export async function listPage(api: Api, batchId: string, options: RecipientListOptions) {
  // The recipient list's pagination parameter names are not shown; we send the batch
  // list's documented `cursor` and `limit`.
  const limit = validateLimit(options.limit ?? MAX_PAGE_SIZE);
  const query = { cursor: options.cursor, limit, emailStatus: options.emailStatus };
  // Every email is read, because skip-existing and find-by-email decide on them.
  const decode = listOf<Recipient>('certificates', { limit, itemCheck: (r) => (typeof r.email === 'string' ? undefined : 'has no "email"') });
  return await api.call({ method: 'GET', route: ROUTE, path: `/batches/${seg(batchId, 'batchId')}/recipients`, query }, decode);
}

export async function listRecipients(api: Api, batchId: string, options: RecipientListOptions = {}): Promise<Page<Recipient>> {
  return page(await listPage(api, batchId, options));
}

export function iterateRecipients(api: Api, batchId: string, options: Omit<RecipientListOptions, 'cursor'> = {}): AsyncGenerator<Recipient> {
  seg(batchId, 'batchId');
  return paginate(`GET ${ROUTE}`, (cursor) => listPage(api, batchId, { ...options, cursor }));
}

export async function getRecipient(api: Api, batchId: string, recipientId: string): Promise<Recipient> {
  return await api.call({ method: 'GET', route: ONE_ROUTE, path: onePath(batchId, recipientId) }, recipient);
}

/**
 * The certificate issued to `email` in a batch (case-insensitive), or null. The list has no
 * email filter, so pages are read until the first match; null only after every page was read.
 */
export async function findRecipientByEmail(api: Api, batchId: string, email: string): Promise<Recipient | null> {
  seg(batchId, 'batchId');
  const wanted = emailKey(requireEmail(email));
  for await (const r of iterateRecipients(api, batchId)) if (emailKey(r.email) === wanted) return r;
  return null;
}

/**
 * The email index: a batch's certificates by `emailKey`, in one paged read (100 a page). A
 * host that looks up many emails in one run, and issueMany's skip-existing, read the batch once.
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
  return await api.call({ method: 'PATCH', route: ONE_ROUTE, path: onePath(batchId, recipientId), body }, action(known));
}

export async function deleteRecipient(api: Api, batchId: string, recipientId: string): Promise<ActionResult> {
  return await api.call({ method: 'DELETE', route: ONE_ROUTE, path: onePath(batchId, recipientId) }, action({ id: recipientId, batchId, deleted: true }));
}

export async function sendCertificate(api: Api, batchId: string, recipientId: string): Promise<ActionResult> {
  const path = `${onePath(batchId, recipientId)}/send`;
  return await api.call({ method: 'POST', route: `${ONE_ROUTE}/send`, path }, action({ id: recipientId, batchId, queued: true }));
}
