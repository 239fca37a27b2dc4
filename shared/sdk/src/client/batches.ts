import { action, one } from '../decode';
import { MAX_PAGE_SIZE } from '../pagination';
import type { Batch, BatchChange, BatchStatusFilter, Page } from '../types';
import { requireString, validateStatus } from '../validation';
import { page, type Api } from './api';
import { ENDPOINTS } from './endpoints';
import { iterateList, listPage, type ListOptions, type ListSpec } from './list';

export type { ListOptions } from './list';
export interface BatchListOptions extends ListOptions {
  status?: BatchStatusFilter;
}

const batch = one<Batch>('a batch', ['batch']);

function batchList(status: BatchStatusFilter | undefined): ListSpec<Batch> {
  return { endpoint: ENDPOINTS.listBatches, noun: 'batches', defaultLimit: MAX_PAGE_SIZE, filters: { status: status === undefined ? undefined : validateStatus(status) } };
}

export async function listBatches(api: Api, options: BatchListOptions = {}): Promise<Page<Batch>> {
  return page(await listPage(api, batchList(options.status), options));
}

export function iterateBatches(api: Api, options: Omit<BatchListOptions, 'cursor'> = {}): AsyncGenerator<Batch> {
  return iterateList(api, batchList(options.status), { limit: options.limit });
}

export async function getBatch(api: Api, batchId: string): Promise<Batch> {
  return await api.call({ endpoint: ENDPOINTS.getBatch, params: { batchId } }, batch);
}

export async function createBatch(api: Api, input: { title: string; designId: string; [extra: string]: unknown }): Promise<Batch> {
  const body = { ...input, title: requireString(input?.title, 'title'), designId: requireString(input?.designId, 'designId') };
  return await api.call({ endpoint: ENDPOINTS.createBatch, body }, batch);
}

/** Archive and unarchive answer with a body the spec does not show: what the call knows is kept. */
export async function setArchived(api: Api, batchId: string, archived: boolean): Promise<BatchChange> {
  const known: BatchChange = { id: batchId, status: archived ? 'archived' : 'active' };
  return await api.call({ endpoint: archived ? ENDPOINTS.archiveBatch : ENDPOINTS.unarchiveBatch, params: { batchId } }, action(known));
}
