import { CertificateServiceError } from './errors';
import type { Page } from './types';

// Reading what the service answered. Where the spec does not show a body (list wrappers,
// cursor names, bulk and action bodies), every plausible shape is read; anything else is an
// UNEXPECTED_RESPONSE error that says what came back (status, content type, top-level keys,
// never values), so a caller never mistakes an unreadable answer for "empty" or "done".

/** What the decoder knows about the response it reads. */
export interface ResponseContext {
  /** Method and path template, e.g. `GET /batches/{batchId}/recipients`. */
  endpoint: string;
  status: number;
  contentType: string;
  /** The call issues certificates: an unreadable answer leaves their outcome unknown. */
  issues: boolean;
  /** The `Date` header as sent (the service's clock when it answered), if any. */
  date?: string;
}

export type Decoder<T> = (body: unknown, context: ResponseContext) => T;

const LIST_KEYS = ['data', 'items', 'results', 'batches', 'recipients', 'designs', 'subscriptions'];
const CURSOR_PATHS = [
  ['nextCursor'],
  ['next_cursor'],
  ['cursor'],
  ['next'],
  ['pagination', 'nextCursor'],
  ['pagination', 'next_cursor'],
  ['meta', 'nextCursor'],
  ['meta', 'next_cursor'],
];
const HAS_MORE_PATHS = [['hasMore'], ['has_more'], ['pagination', 'hasMore'], ['meta', 'hasMore']];

function dig(obj: unknown, path: string[]): unknown {
  let v = obj;
  for (const key of path) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** What a body looks like, in words that carry no value from it. */
export function bodyShape(body: unknown): string {
  if (body === null || body === undefined) return 'an empty body';
  if (typeof body === 'string') return /^\s*</.test(body) ? 'an HTML page' : `text that is not JSON (${body.length} characters)`;
  if (Array.isArray(body)) return `a list of ${body.length}`;
  if (isObject(body)) {
    const keys = Object.keys(body);
    return keys.length ? `an object with keys ${keys.slice(0, 12).map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}${keys.length > 12 ? ', …' : ''}` : 'an empty object';
  }
  return `a JSON ${typeof body}`;
}

/** The error for an answer the core cannot read. */
export function unexpected(context: ResponseContext, body: unknown, what: string): CertificateServiceError {
  return new CertificateServiceError({
    code: 'UNEXPECTED_RESPONSE',
    phase: 'response',
    status: context.status,
    outcomeUnknown: context.issues,
    detail: { endpoint: context.endpoint, contentType: context.contentType || 'none', received: bodyShape(body) },
    message: `${context.endpoint} answered ${context.status}${context.contentType ? ` (${context.contentType})` : ''} with ${bodyShape(body)}, where ${what} was expected.`,
  });
}

// --- Lists -------------------------------------------------------------------

/** Which of the known list shapes a body is in: the wrapper key and the cursor's path. */
export interface ListShape {
  /** `(array)` for a bare list, else the key that holds the items. */
  wrapper: string;
  /** Dotted path of the next-page cursor when the body has one (even if null), e.g. `pagination.nextCursor`. */
  cursorField?: string;
  /** True when the body says there is no further page (a null cursor or hasMore: false). */
  saysLastPage: boolean;
}

/** The list shape of a body, or undefined when it is none of those the core reads. Pure; used by `certsvc doctor`. */
export function describeList(body: unknown): ListShape | undefined {
  if (Array.isArray(body)) return { wrapper: '(array)', saysLastPage: false };
  if (!isObject(body)) return undefined;
  const wrapper = LIST_KEYS.find((k) => Array.isArray(body[k]));
  if (!wrapper) return undefined;
  const cursorPath = CURSOR_PATHS.find((p) => {
    const c = dig(body, p);
    return c === null || (typeof c === 'string' && c !== '') || typeof c === 'number';
  });
  const cursor = cursorPath ? dig(body, cursorPath) : undefined;
  const hasMore = HAS_MORE_PATHS.map((p) => dig(body, p)).find((v) => typeof v === 'boolean');
  return {
    wrapper,
    ...(cursorPath ? { cursorField: cursorPath.join('.') } : {}),
    saysLastPage: hasMore === false || (cursorPath !== undefined && cursor === null),
  };
}

/** A page as decoded: the items, the next cursor, and whether the body said it was the last. */
export interface DecodedPage<T> extends Page<T> {
  shape: ListShape;
  /** The response's `Date` header (the service's clock), if it sent one: a poll reads it. */
  date?: string;
  /**
   * Set when this page is full and says neither where the next one is nor that it is the last:
   * the error to raise if the caller wants what follows (reading the whole list).
   */
  restUnknown?: CertificateServiceError;
}

/**
 * A list page whose items each have an `id` string. `itemCheck` may require more of each
 * item (the email of a recipient, say), naming what is missing.
 */
export function listOf<T>(
  noun: string,
  options: { limit?: number; itemCheck?: (item: Record<string, unknown>) => string | undefined } = {},
): Decoder<DecodedPage<T>> {
  const { limit, itemCheck } = options;
  return (body, context) => {
    const shape = describeList(body);
    if (!shape) return failList(body, context, noun);
    const items = (shape.wrapper === '(array)' ? body : (body as Record<string, unknown>)[shape.wrapper]) as unknown[];
    items.forEach((item, i) => {
      const problem = !isObject(item) ? 'is not an object' : typeof item.id !== 'string' || !item.id ? 'has no "id"' : itemCheck?.(item);
      if (problem) throw unexpected(context, body, `a list of ${noun} (item ${i} ${problem})`);
    });
    const cursor = shape.cursorField ? dig(body, shape.cursorField.split('.')) : undefined;
    const nextCursor = shape.saysLastPage || cursor === null || cursor === undefined ? null : String(cursor);
    // A full page with neither a cursor nor a word that it is the last: more may follow under a
    // name this version does not know, and "that was all" would be a guess.
    const restUnknown =
      nextCursor === null && !shape.saysLastPage && limit !== undefined && items.length >= limit
        ? unexpected(context, body, `a list of ${noun} with a next-page cursor or a sign that this full page of ${items.length} is the last`)
        : undefined;
    return { items: items as T[], nextCursor, shape, ...(context.date ? { date: context.date } : {}), ...(restUnknown ? { restUnknown } : {}) };
  };
}

function failList(body: unknown, context: ResponseContext, noun: string): never {
  throw unexpected(context, body, `a list of ${noun}`);
}

// --- Single resources ----------------------------------------------------------

/**
 * One resource, bare or under one of `keys` (or `data`), with a non-empty string at each of
 * `fields`: what the core and the hosts rely on. The type claims no more than those and what the
 * spec lists; a field the spec lists and the answer lacks is simply absent.
 */
export function one<T>(noun: string, keys: string[] = [], fields: readonly string[] = ['id']): Decoder<T> {
  return (body, context) => {
    const complete = (v: unknown): v is Record<string, unknown> => isObject(v) && fields.every((f) => typeof v[f] === 'string' && v[f] !== '');
    if (complete(body)) return body as T;
    if (isObject(body)) for (const k of [...keys, 'data']) if (complete(body[k])) return body[k] as T;
    throw unexpected(context, body, `${noun} with ${fields.map((f) => `"${f}"`).join(', ')}`);
  };
}

/**
 * The answer to an action whose body the spec does not show (archive, send, delete, test…):
 * nothing, or an object (bare or under `data`) that is merged over what the call knows. A
 * page of HTML or text is not an answer from the API (a proxy or a login page may send it).
 */
export function action<T extends Record<string, unknown>>(known: T): Decoder<T> {
  return (body, context) => {
    if (body === null || body === undefined) return known;
    if (isObject(body)) {
      const inner = body.id === undefined && isObject(body.data) ? body.data : body;
      return { ...known, ...inner };
    }
    throw unexpected(context, body, 'an empty body or a JSON object');
  };
}
