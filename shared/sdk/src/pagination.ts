import type { DecodedPage } from './decode';
import { CertificateServiceError } from './errors';

export const MAX_PAGE_SIZE = 100;

/**
 * The one walk over a list's pages, each yielded with the cursor that fetched it (undefined: the
 * top). Ends where a page says it is the last (no cursor), or on an empty page. Passing off part
 * of the list as all of it is an error instead: a cursor that comes back a second time (it would
 * also loop forever), or a full page that says neither where the next one is nor that it is the
 * last. The error and the next request come only when the caller asks for the next page, so a
 * caller that stops early (the first N items, a poll's budget) reads no more than it needs.
 * `start`: a page the caller already has, to walk on from.
 */
export async function* pages<T>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<DecodedPage<T>>,
  start?: { page: DecodedPage<T>; cursor: string | undefined },
): AsyncGenerator<{ page: DecodedPage<T>; cursor: string | undefined }> {
  const used = new Set<string>();
  let [page, cursor] = start ? [start.page, start.cursor] : [await fetchPage(undefined), undefined];
  for (;;) {
    yield { page, cursor };
    if (page.restUnknown) throw page.restUnknown;
    if (!page.nextCursor || page.items.length === 0) return;
    if (used.has(page.nextCursor)) {
      throw new CertificateServiceError({
        code: 'UNEXPECTED_RESPONSE',
        phase: 'response',
        status: 200,
        detail: { endpoint },
        message: `${endpoint} gave a next-page cursor it had given before, so the rest of the list cannot be read.`,
      });
    }
    used.add(page.nextCursor);
    cursor = page.nextCursor;
    page = await fetchPage(cursor);
  }
}

/** Every item across pages (see `pages`). */
export async function* paginate<T>(endpoint: string, fetchPage: (cursor: string | undefined) => Promise<DecodedPage<T>>): AsyncGenerator<T> {
  for await (const { page } of pages(endpoint, fetchPage)) yield* page.items;
}

/** Collects up to `limit` items (all when undefined), fetching no more pages than needed. */
export async function collect<T>(items: AsyncIterable<T>, limit?: number): Promise<T[]> {
  const out: T[] = [];
  if (limit !== undefined && limit <= 0) return out;
  for await (const item of items) {
    out.push(item);
    if (limit !== undefined && out.length >= limit) break;
  }
  return out;
}
