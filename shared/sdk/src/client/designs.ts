import type { Design, Page } from '../types';
import { page, type Api } from './api';
import { ENDPOINTS } from './endpoints';
import { iterateList, listPage, type ListOptions, type ListSpec } from './list';

// The spec shows no query for GET /designs: the service's own page size applies unless asked.
export const DESIGN_LIST: ListSpec<Design> = { endpoint: ENDPOINTS.listDesigns, noun: 'designs' };

export async function listDesigns(api: Api, options: ListOptions = {}): Promise<Page<Design>> {
  return page(await listPage(api, DESIGN_LIST, options));
}

export function iterateDesigns(api: Api): AsyncGenerator<Design> {
  return iterateList(api, DESIGN_LIST);
}
