// Keyset pagination, newest first (recipient lists can also be served oldest first, see
// RecipientOrder). The cursor is opaque to clients (base64url JSON) and holds the seq of the
// last item returned plus the list it belongs to, so inserts and deletes between pages never
// skip or repeat an item.
import { validationError } from './errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './choices';

export const DEFAULT_LIMIT = DEFAULT_PAGE_SIZE;
export const MAX_LIMIT = MAX_PAGE_SIZE;

export interface PageQuery {
  /** Items strictly older than this seq; null = from the newest. */
  beforeSeq: number | null;
  limit: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function parsePageQuery(query: URLSearchParams, listId: string): PageQuery {
  let limit = DEFAULT_LIMIT;
  const rawLimit = query.get('limit');
  if (rawLimit !== null) {
    limit = /^\d+$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) {
      throw validationError('limit', `limit must be an integer from 1 to ${MAX_LIMIT}; got "${rawLimit}".`);
    }
  }
  const cursor = query.get('cursor');
  return { beforeSeq: cursor ? decodeCursor(cursor, listId) : null, limit };
}

export function encodeCursor(listId: string, seq: number): string {
  return Buffer.from(JSON.stringify({ l: listId, s: seq }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, listId: string): number {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { l?: unknown; s?: unknown };
    if (value.l === listId && typeof value.s === 'number' && Number.isInteger(value.s)) return value.s;
  } catch {
    // fall through to the error below
  }
  throw validationError(
    'cursor',
    'cursor is not valid for this list. Pass the next-page cursor from the previous response unchanged, with the same path.',
  );
}

/**
 * One page of `items` (ascending seq), walked from the newest down, or from the oldest up
 * when `oldestFirst` (the cursor's seq is then the last item *before* the page). The list id
 * must differ between the two orders, so a cursor of one is refused by the other.
 */
export function paginate<T extends { seq: number }>(
  items: readonly T[],
  listId: string,
  q: PageQuery,
  filter?: (item: T) => boolean,
  oldestFirst = false,
): Page<T> {
  const step = oldestFirst ? 1 : -1;
  let i = oldestFirst
    ? q.beforeSeq === null ? 0 : lastIndexBelow(items, q.beforeSeq + 1) + 1
    : q.beforeSeq === null ? items.length - 1 : lastIndexBelow(items, q.beforeSeq);
  const page: T[] = [];
  let hasMore = false;
  for (; i >= 0 && i < items.length; i += step) {
    const item = items[i];
    if (filter && !filter(item)) continue;
    if (page.length === q.limit) {
      hasMore = true;
      break;
    }
    page.push(item);
  }
  const last = page[page.length - 1];
  return { items: page, nextCursor: hasMore && last ? encodeCursor(listId, last.seq) : null };
}

function lastIndexBelow(items: readonly { seq: number }[], seq: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid].seq < seq) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
