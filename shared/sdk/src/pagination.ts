import type { DecodedPage } from './decode';
import { CertificateServiceError } from './errors';

export const MAX_PAGE_SIZE = 100;

/**
 * Iterates every item across pages. Ends where a page says it is the last (no cursor), or
 * on an empty page. Passing off part of the list as all of it is an error instead: a cursor
 * that comes back a second time (it would also loop forever), or a full page that says
 * neither where the next one is nor that it is the last. The error comes only when the
 * caller asks for more than was read, so taking the first N items of such a list works.
 */
export async function* paginate<T>(endpoint: string, fetchPage: (cursor: string | undefined) => Promise<DecodedPage<T>>): AsyncGenerator<T> {
  const used = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    for (const item of page.items) yield item;
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
  }
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
