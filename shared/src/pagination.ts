import type { Page } from './types';

// The spec does not show the list wrapper or the cursor's name (section 4, "Gaps"),
// so every common shape is accepted.
const LIST_KEYS = ['data', 'items', 'results', 'batches', 'recipients', 'designs', 'subscriptions'];
const CURSOR_PATHS = [['nextCursor'], ['next_cursor'], ['cursor'], ['next'], ['pagination', 'nextCursor'], ['pagination', 'next_cursor'], ['meta', 'nextCursor'], ['meta', 'next_cursor']];

export const MAX_PAGE_SIZE = 100;

function dig(obj: Record<string, unknown>, path: string[]): unknown {
  let v: unknown = obj;
  for (const key of path) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** Reads one page of any plausible list shape: a bare array or a wrapper with a cursor. */
export function readPage<T>(body: unknown): Page<T> {
  if (Array.isArray(body)) return { items: body as T[], nextCursor: null };
  if (!body || typeof body !== 'object') return { items: [], nextCursor: null };
  const obj = body as Record<string, unknown>;
  const key = LIST_KEYS.find((k) => Array.isArray(obj[k]));
  const items = key ? (obj[key] as T[]) : [];
  let nextCursor: string | null = null;
  for (const path of CURSOR_PATHS) {
    const c = dig(obj, path);
    if ((typeof c === 'string' && c) || typeof c === 'number') {
      nextCursor = String(c);
      break;
    }
  }
  const hasMore = obj.hasMore ?? obj.has_more ?? dig(obj, ['pagination', 'hasMore']) ?? dig(obj, ['meta', 'hasMore']);
  if (hasMore === false) nextCursor = null;
  return { items, nextCursor };
}

/**
 * Iterates every item across pages. Stops on a missing cursor, and on a cursor
 * that was already used, so a misbehaving server cannot loop it forever.
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  const used = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    for (const item of page.items) yield item;
    if (!page.nextCursor || used.has(page.nextCursor) || page.items.length === 0) return;
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

/** Unwraps a single resource that may come bare or as `{data: {...}}` / `{batch: {...}}`. */
export function readOne<T>(body: unknown, ...keys: string[]): T {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const obj = body as Record<string, unknown>;
    if (typeof obj.id !== 'string') {
      for (const k of [...keys, 'data']) {
        const inner = obj[k];
        if (inner && typeof inner === 'object' && !Array.isArray(inner)) return inner as T;
      }
    }
  }
  return body as T;
}
