// The list wrapper is "not shown" in the spec, so the sandbox can answer in each shape a
// real service might use; clients are tested against all of them.
import type { ListShape } from './types';

/** A 200 answer that is an HTML page, not JSON (see UNKNOWN_LIST_SHAPES). */
export class HtmlPage {
  constructor(readonly html: string) {}
}

export type ListName = 'batches' | 'recipients' | 'designs' | 'subscriptions';

export function shapeList(shape: ListShape, name: ListName, data: unknown[], nextCursor: string | null): unknown {
  switch (shape) {
    case 'default':
      return { data, nextCursor, hasMore: nextCursor !== null };
    case 'bare':
      return data;
    case 'items':
      return { items: data, next_cursor: nextCursor };
    case 'results':
      return { results: data, cursor: nextCursor };
    case 'named':
      return { [name]: data, next: nextCursor };
    case 'pagination':
      return { data, pagination: { nextCursor } };
    case 'meta':
      return { data, meta: { nextCursor } };
    case 'has_more':
      return { data, next_cursor: nextCursor, has_more: nextCursor !== null };
    case 'entries':
      return { entries: data, continuation: nextCursor };
    case 'payload_rows':
      return { payload: { rows: data, after: nextCursor } };
    case 'html_page':
      return new HtmlPage('<!doctype html><html><head><title>Sign in</title></head><body><h1>Please sign in</h1></body></html>');
  }
}
