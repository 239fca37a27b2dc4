import { listOf } from '../decode';
import { paginate } from '../pagination';
import type { Design, Page } from '../types';
import { validateLimit } from '../validation';
import { page, type Api } from './api';
import type { ListOptions } from './batches';

async function listPage(api: Api, options: ListOptions) {
  const limit = options.limit === undefined ? undefined : validateLimit(options.limit);
  return await api.call({ method: 'GET', route: '/designs', path: '/designs', query: { cursor: options.cursor, limit } }, listOf<Design>('designs', { limit }));
}

export async function listDesigns(api: Api, options: ListOptions = {}): Promise<Page<Design>> {
  return page(await listPage(api, options));
}

// The spec shows no query for GET /designs: the service's own page size applies unless asked.
export function iterateDesigns(api: Api): AsyncGenerator<Design> {
  return paginate('GET /designs', (cursor) => listPage(api, { cursor }));
}
