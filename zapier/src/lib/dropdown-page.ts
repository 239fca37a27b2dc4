import type { Bundle, ZObject } from 'zapier-platform-core';
import type { Page } from '@certificate-service/sdk/core';

/**
 * One page of a dropdown per call. Zapier asks for page 0, 1, 2... as the user scrolls
 * (`canPaginate`); the service's next-page cursor is kept between those calls with
 * z.cursor, which Zapier stores per dropdown.
 */
export async function dropdownPage<T>(z: ZObject, bundle: Bundle, list: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  let cursor: string | undefined;
  if (bundle.meta?.page) {
    cursor = (await z.cursor.get()) || undefined;
    if (!cursor) return []; // the previous page was the last one
  }
  const page = await list(cursor);
  // Always overwrite: a stale cursor would serve the last page again.
  await z.cursor.set(page.nextCursor ?? '');
  return page.items;
}
