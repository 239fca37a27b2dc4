import { listOf, type DecodedPage, type ResponseContext } from '../decode';
import { paginate } from '../pagination';
import type { CallSpec } from '../request';
import { validateLimit } from '../validation';
import type { Api } from './api';
import { endpointName, type Endpoint } from './endpoints';

// The one list page and the one walk over pages, for every list of the API (batches, designs,
// certificates, subscriptions): what differs is named in a ListSpec.

export interface ListOptions {
  cursor?: string;
  limit?: number;
}

export interface ListSpec<T> {
  endpoint: Endpoint;
  /** The values of the route's `{name}`s. */
  params?: CallSpec['params'];
  /** What the list holds, for "what came back" errors: `certificates`. */
  noun: string;
  /** `limit` sent when the caller gives none (undefined: the service's own page size). */
  defaultLimit?: number;
  /** Further query filters (`status`, `emailStatus`), checked by the caller. */
  filters?: Record<string, string | undefined>;
  /** More than an `id` each item must have, naming what is missing (a certificate's email). */
  itemCheck?: (item: Record<string, unknown>) => string | undefined;
  /** Each item as the caller wants it, read while the answer's context is at hand. */
  read?: (item: Record<string, unknown>, context: ResponseContext) => T;
}

/** One page. A `limit` outside 1..100 is a VALIDATION_ERROR naming it, before any request. */
export async function listPage<T>(api: Api, spec: ListSpec<T>, options: ListOptions = {}): Promise<DecodedPage<T>> {
  const given = options.limit ?? spec.defaultLimit;
  const limit = given === undefined ? undefined : validateLimit(given);
  const list = listOf<Record<string, unknown>>(spec.noun, { limit, itemCheck: spec.itemCheck });
  const query = { cursor: options.cursor, limit, ...spec.filters };
  return await api.call({ endpoint: spec.endpoint, params: spec.params, query }, (body, context) => {
    const page = list(body, context);
    return { ...page, items: page.items.map((item) => (spec.read ? spec.read(item, context) : (item as T))) };
  });
}

/** Every item, page after page (pagination.ts guards against passing part of a list off as all of it). */
export function iterateList<T>(api: Api, spec: ListSpec<T>, options: Omit<ListOptions, 'cursor'> = {}): AsyncGenerator<T> {
  if (options.limit !== undefined) validateLimit(options.limit);
  return paginate(endpointName(spec.endpoint), (cursor) => listPage(api, spec, { ...options, cursor }));
}
