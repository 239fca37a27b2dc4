// Shared helpers for the Zapier app tests: the app tester, Zapier-style webhook requests
// and readers for Zapier's error classes. (nock lives in mock-api.ts: importing it
// intercepts every http request of the process, which the sandbox e2e must not have.)
import zapier, { type Bundle, type ZObject } from 'zapier-platform-core';
import App from '../../zapier/src';
import { signPayload, type EventType, type Recipient, type WebhookEvent } from '@certificate-service/sdk/core';
import { recipientFixture } from '../support/recipient';
import { API_KEY, BASE_URL, ORIGIN } from '../support/service';

export { App };
export { API_KEY, BASE_URL, ORIGIN } from '../support/service';
export const SECRET = 'wh_sec_test_secret_0123456789';
export const authData = { apiKey: API_KEY, baseUrl: BASE_URL };

export const appTester = zapier.createAppTester(App);

/* eslint-disable @typescript-eslint/no-explicit-any */
type Loose = Record<string, any>;
/** The app definition as plain data, for assertions by key (its precise types are per key). */
export interface LooseApp {
  authentication: Loose & { test: (z: ZObject, bundle: Bundle) => Promise<unknown>; fields: Loose[] };
  beforeRequest: Array<(request: Loose, z: unknown, bundle: unknown) => Loose>;
  triggers: Record<string, Loose>;
  creates: Record<string, Loose>;
  searches: Record<string, Loose>;
  searchOrCreates: Record<string, Loose>;
}
export const app = App as unknown as LooseApp;

type Handler = (event: Record<string, unknown>) => Promise<{ results: unknown }>;
/** zapier-platform-core's Lambda handler factory (exported at runtime, missing from its typings). */
export const createAppHandler = (zapier as unknown as { createAppHandler: (appRaw: object) => Handler }).createAppHandler;

/** Runs an app method by its path (e.g. `creates.issue_certificate.operation.perform`). */
export function run<T = unknown>(path: string, bundle: Record<string, unknown> = {}, clearCache = false): Promise<T> {
  const fn = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], App);
  if (typeof fn !== 'function') throw new Error(`${path} is not a function of the app`);
  return appTester(fn as (z: ZObject, bundle: Bundle) => Promise<T>, { authData, ...bundle }, clearCache);
}

export function recipient(overrides: Partial<Recipient> = {}): Recipient {
  return recipientFixture(1, {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    certificateId: 'CERT-2025-000001-1234',
    shareToken: 'tok_1',
    certUrl: `${ORIGIN}/v/tok_1`,
    issueDate: '2025-06-02T09:15:00.000Z',
    data: { course: 'Analytics' },
    createdAt: '2025-06-02T09:15:00.000Z',
    ...overrides,
  });
}

/** The recipient fields that hold dates. */
const DATE_KEYS = ['issueDate', 'expiryDate', 'emailSentAt', 'createdAt', 'recipientCreatedAt'];

/** An item as the app returns it: a date that is not set (null) is left out, never null. */
export function asOutput<T extends object>(item: T): Partial<T> {
  return Object.fromEntries(Object.entries(item).filter(([key, value]) => !(value === null && DATE_KEYS.includes(key)))) as Partial<T>;
}

let events = 0;
/** Each event is of a certificate of its own: a certificate event's claim is its occurrence (the certificate id for issued). */
export function event(type: EventType, data: Partial<WebhookEvent['data']> = {}, id = 'whe_1'): WebhookEvent {
  return { id, type, createdAt: '2025-06-02T09:16:00.000Z', data: { ...recipient(), id: `rec_e${++events}`, ...data } };
}

/** `x-service-signature` → `Http-X-Service-Signature`: how Zapier hands hook headers to perform. */
export function zapierHeaderName(name: string): string {
  return `Http-${name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-')}`;
}

export function zapierHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[zapierHeaderName(name)] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** A signed delivery as Zapier would pass it to a hook trigger's perform. */
export function delivery(
  body: unknown,
  options: { secret?: string; t?: number; deliveryId?: string; type?: string; headers?: Record<string, string> } = {},
) {
  const content = typeof body === 'string' ? body : JSON.stringify(body);
  const type = options.type ?? (body as { type?: string }).type ?? 'certificate.issued';
  const signed = signPayload(options.secret ?? SECRET, content, options.t ?? Math.floor(Date.now() / 1000));
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'Service-Webhook/1',
    'X-Service-Event': type,
    'X-Service-Delivery': options.deliveryId ?? `whd_${Math.random().toString(36).slice(2)}`,
    ...signed,
    ...options.headers,
  };
  return { rawRequest: { method: 'POST', querystring: '', headers: zapierHeaders(headers), content } };
}

export interface CaughtError {
  name: string;
  message: string;
  /** Zapier appends a "What happened" log to some messages; this is the message itself. */
  firstLine: string;
  /** z.errors.Error (AppError) and ThrottledError carry JSON in their message. */
  json?: Record<string, unknown>;
}

/** Awaits a promise that must reject, and reads Zapier's error shape. */
export async function caught(promise: Promise<unknown>): Promise<CaughtError> {
  let error: unknown;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  if (!error) throw new Error('expected the call to fail, but it succeeded');
  const { name, message } = error as Error;
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(message);
  } catch {
    json = undefined;
  }
  return { name, message, firstLine: message.split('\n')[0], json };
}

/**
 * A `cursorTestObj` that behaves like Zapier's cursor storage for one storeKey.
 * zapier-platform-core 19.1.0's mock (create-rpc-client.js, rpcCursorMock) reads the
 * arguments positionally as (key, value): `set_cursor` stores `{[cursor]: null}` and
 * `get_cursor` reads the key `undefined`, so a plain object never returns a cursor.
 * This object keeps the last cursor set and hands it back on get, as the real RPC does.
 */
export function cursorStore(): Record<string, string> & { current(): string | null } {
  let cursor: string | null = null;
  return new Proxy({} as Record<string, string> & { current(): string | null }, {
    set: (_target, key) => {
      cursor = String(key);
      return true;
    },
    get: (_target, key) => (key === 'current' ? () => cursor : key === 'undefined' ? cursor : undefined),
  });
}
