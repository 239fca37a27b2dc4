// Keyset pagination, newest first. The cursor is opaque to clients (base64url JSON) and holds
// the seq of the last item returned plus the list it belongs to, so inserts and deletes
// between pages never skip or repeat an item. Recipient lists follow the list model instead
// (pageRecipients: order, cursor kind and lifetime, see choices.ts).
import { validationError } from './errors';
import { type CursorExpiry, type CursorKind, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type RecipientOrder } from './choices';

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

function parseLimit(query: URLSearchParams): number {
  const rawLimit = query.get('limit');
  if (rawLimit === null) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(rawLimit) ? Number(rawLimit) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw validationError('limit', `limit must be an integer from 1 to ${MAX_LIMIT}; got "${rawLimit}".`);
  }
  return limit;
}

export function parsePageQuery(query: URLSearchParams, listId: string): PageQuery {
  const cursor = query.get('cursor');
  return { beforeSeq: cursor ? decodeCursor(cursor, listId) : null, limit: parseLimit(query) };
}

export function encodeCursor(listId: string, seq: number): string {
  return Buffer.from(JSON.stringify({ l: listId, s: seq }), 'utf8').toString('base64url');
}

const notForThisList = () =>
  validationError('cursor', 'cursor is not valid for this list. Pass the next-page cursor from the previous response unchanged, with the same path.');

function decodeCursor(cursor: string, listId: string): number {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { l?: unknown; s?: unknown };
    if (value.l === listId && typeof value.s === 'number' && Number.isInteger(value.s)) return value.s;
  } catch {
    // fall through to the error below
  }
  throw notForThisList();
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

// --- Recipient lists, under the list model ----------------------------------------------------

/** What a recipient list page depends on besides its query (choices.ts). */
export interface ListModel {
  order: RecipientOrder;
  kind: CursorKind;
  expiry: CursorExpiry;
  /** The service's clock now (epoch ms). */
  now: number;
  /** Writes to the batch's certificates so far (Store.writes). */
  writes: number;
}

/** A recipient cursor's content: its list, its position, and when it was handed out (time and writes). */
interface RecipientCursor {
  l: string;
  /** Keyset: the sort key of the last item returned. Offset: the index of the next item. */
  p: number[] | number;
  t: number;
  w: number;
}

type Key = [number, number];

/** FNV-1a: a stable order unrelated to time, for `undetectable`. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function sortKey(order: RecipientOrder, seq: number, id: string): Key {
  if (order === 'newest-first') return [-seq, 0];
  if (order === 'oldest-first') return [seq, 0];
  return [hash(id), seq];
}

const after = (a: Key, b: readonly number[]) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

function readRecipientCursor(raw: string, listId: string, model: ListModel): RecipientCursor {
  let value: Partial<RecipientCursor>;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<RecipientCursor>;
  } catch {
    throw notForThisList();
  }
  const position = model.kind === 'offset' ? Number.isInteger(value.p) && (value.p as number) >= 0 : Array.isArray(value.p) && value.p.length === 2;
  if (value.l !== listId || !position || typeof value.t !== 'number' || typeof value.w !== 'number') throw notForThisList();
  const { afterMs, afterWrites } = model.expiry || {};
  if (afterMs !== undefined && model.now - value.t > afterMs) {
    throw validationError('cursor', `cursor expired: cursors are valid for ${afterMs} ms. Read the list again from its first page.`);
  }
  if (afterWrites !== undefined && model.writes - value.w > afterWrites) {
    throw validationError('cursor', `cursor expired: the list changed more than ${afterWrites} times since. Read the list again from its first page.`);
  }
  return value as RecipientCursor;
}

/**
 * One page of a batch's certificates (`items` in issue order), filtered, in the model's order,
 * from the model's kind of cursor. `listId` names the list, its order and its cursor kind, so a
 * cursor of another is refused.
 */
export function pageRecipients<T extends { seq: number; recipient: { id: string } }>(
  items: readonly T[],
  listId: string,
  query: URLSearchParams,
  model: ListModel,
  filter: (item: T) => boolean,
): Page<T> {
  const limit = parseLimit(query);
  const raw = query.get('cursor');
  const cursor = raw ? readRecipientCursor(raw, listId, model) : undefined;
  const view = items
    .filter(filter)
    .map((item) => ({ item, key: sortKey(model.order, item.seq, item.recipient.id) }))
    .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1]);
  let start = 0;
  if (cursor && model.kind === 'offset') start = cursor.p as number;
  else if (cursor) start = view.findIndex((v) => after(v.key, cursor.p as number[]));
  if (start < 0) start = view.length;
  const page = view.slice(start, start + limit);
  const more = start + limit < view.length;
  const next = (p: RecipientCursor['p']) =>
    Buffer.from(JSON.stringify({ l: listId, p, t: model.now, w: model.writes }), 'utf8').toString('base64url');
  return {
    items: page.map((v) => v.item),
    nextCursor: more ? next(model.kind === 'offset' ? start + limit : page[page.length - 1].key) : null,
  };
}
