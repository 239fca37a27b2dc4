import { action, listOf, one } from '../decode';
import { MAX_PAGE_SIZE, paginate } from '../pagination';
import type { Batch, BatchChange, BatchStatusFilter, Page } from '../types';
import { requireString, validateLimit, validateStatus } from '../validation';
import { page, seg, type Api } from './api';

export interface ListOptions {
  cursor?: string;
  limit?: number;
}
export interface BatchListOptions extends ListOptions {
  status?: BatchStatusFilter;
}

const batch = one<Batch>('a batch', ['batch']);

async function listPage(api: Api, options: BatchListOptions) {
  const limit = validateLimit(options.limit ?? MAX_PAGE_SIZE);
  const query = { cursor: options.cursor, limit, status: options.status === undefined ? undefined : validateStatus(options.status) };
  return await api.call({ method: 'GET', route: '/batches', path: '/batches', query }, listOf<Batch>('batches', { limit }));
}

export async function listBatches(api: Api, options: BatchListOptions = {}): Promise<Page<Batch>> {
  return page(await listPage(api, options));
}

export function iterateBatches(api: Api, options: Omit<BatchListOptions, 'cursor'> = {}): AsyncGenerator<Batch> {
  if (options.status !== undefined) validateStatus(options.status);
  return paginate('GET /batches', (cursor) => listPage(api, { ...options, cursor }));
}

export async function getBatch(api: Api, batchId: string): Promise<Batch> {
  return await api.call({ method: 'GET', route: '/batches/{batchId}', path: `/batches/${seg(batchId, 'batchId')}` }, batch);
}

export async function createBatch(api: Api, input: { title: string; designId: string; [extra: string]: unknown }): Promise<Batch> {
  const body = { ...input, title: requireString(input?.title, 'title'), designId: requireString(input?.designId, 'designId') };
  return await api.call({ method: 'POST', route: '/batches', path: '/batches', body }, batch);
}

/** Archive and unarchive answer with a body the spec does not show: what the call knows is kept. */
export async function setArchived(api: Api, batchId: string, archived: boolean): Promise<BatchChange> {
  const verb = archived ? 'archive' : 'unarchive';
  const known: BatchChange = { id: batchId, status: archived ? 'archived' : 'active' };
  return await api.call({ method: 'POST', route: `/batches/{batchId}/${verb}`, path: `/batches/${seg(batchId, 'batchId')}/${verb}` }, action(known));
}
