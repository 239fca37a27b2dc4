// The test-facing control surface. Everything here is also served over HTTP under
// /__sandbox (see routes/controls.ts), without auth and without being counted.
import type { Recipient } from '@certificate-service/sdk';
import { resetContext, type SandboxContext, type Settings } from './context';
import type { CountersSnapshot } from './counters';
import { ApiError, notFound, validationError } from './errors';
import type { FaultInfo, FaultSpec } from './faults';
import { createWorkspaceRecord } from './seed';
import {
  CURSOR_KINDS,
  type CursorExpiry,
  type CursorKind,
  RECIPIENT_ORDERS,
  type RecipientOrder,
  TIMESTAMP_PRECISIONS,
  type TimestampPrecision,
} from './choices';
import { BULK_RESPONSE_SHAPES, type BulkResponseShape, type DeliveryAttempt, type EventLogEntry, LIST_SHAPES, type ListShape, TEST_DELIVERY_SHAPES, type TestDeliveryShape } from './types';
import { recordView, type ViewerInfo } from './viewing';

export const MAX_ACTIVE_KEYS = 10;

export interface SubscriptionInfo {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  createdAt: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
}

export interface QuotaInfo {
  quota: number;
  used: number;
  remaining: number;
}

/** The context's settings, plus the delivery engine's duplicate count. */
export interface SettingsInfo extends Settings {
  duplicateDeliveries: number;
}

export interface SandboxControls {
  injectFaults(spec: FaultSpec): FaultInfo;
  clearFaults(): void;
  faults(): FaultInfo[];
  /** Deliver each event n times with the same X-Service-Delivery (at-least-once). */
  setDuplicateDeliveries(n: number): void;
  setListShape(shape: ListShape): void;
  setBulkResponseShape(shape: BulkResponseShape): void;
  /** Recipient lists newest first (default), oldest first, or in an order a client cannot infer. */
  setRecipientOrder(order: RecipientOrder): void;
  /** `createdAt` and `emailSentAt` to the millisecond (default) or to the second. */
  setTimestampPrecision(precision: TimestampPrecision): void;
  /** Recipient list cursors: keyset (`opaque`, default) or `offset`. */
  setCursorKind(kind: CursorKind): void;
  /** When recipient list cursors are refused: `false` (never, default) or `{ afterMs?, afterWrites? }`. */
  setCursorExpiry(expiry: CursorExpiry): void;
  /** Hands every queued email to the mail provider now, instead of after `mailDelayMs`. */
  settleMail(): void;
  /** The `data` of the test delivery: a recipient sample (default), `{}` or `[]`. */
  setTestDelivery(shape: TestDeliveryShape): void;
  settings(): SettingsInfo;
  counters(): CountersSnapshot;
  resetCounters(): void;
  /** All state back to seeded; pending mail and deliveries are cancelled. */
  reset(): void;
  createWorkspace(input?: { username?: string; quota?: number }): { workspaceId: string; apiKey: string };
  /** At most 10 active keys per workspace; `expired: true` makes a key that gets EXPIRED_API_KEY. */
  createApiKey(workspaceId: string, opts?: { expired?: boolean }): { apiKey: string; expiresAt: string | null };
  expireApiKey(apiKey: string): void;
  quota(workspaceId?: string): QuotaInfo;
  /** Same as opening the public viewer page (fires certificate.viewed on the first view). */
  viewCertificate(shareToken: string, viewer?: Partial<ViewerInfo>): Recipient | null;
  deliveries(): DeliveryAttempt[];
  waitForDeliveries(predicate: (log: DeliveryAttempt[]) => boolean, timeoutMs?: number): Promise<DeliveryAttempt[]>;
  subscriptions(workspaceId?: string): SubscriptionInfo[];
  events(): EventLogEntry[];
  /** The certificates a batch holds, in issue order, read from the store (not through the API). */
  certificates(batchId: string): Recipient[];
}

function oneOf<T extends string>(allowed: readonly T[], value: unknown, field: string): T {
  if (!(allowed as readonly unknown[]).includes(value)) {
    throw validationError(field, `${field} must be one of ${allowed.join(', ')}.`);
  }
  return value as T;
}

/** `false`, or `{ afterMs?, afterWrites? }` with whole numbers >= 0. */
export function checkCursorExpiry(value: unknown): CursorExpiry {
  if (value === false) return false;
  const v = value as Record<string, unknown> | null;
  const count = (x: unknown) => x === undefined || (Number.isInteger(x) && (x as number) >= 0);
  if (!v || typeof v !== 'object' || Array.isArray(v) || !count(v.afterMs) || !count(v.afterWrites)) {
    throw validationError('cursorExpiry', 'cursorExpiry must be false or { afterMs?, afterWrites? } with whole numbers >= 0.');
  }
  return { ...(v.afterMs !== undefined ? { afterMs: v.afterMs as number } : {}), ...(v.afterWrites !== undefined ? { afterWrites: v.afterWrites as number } : {}) };
}

export function createControls(sb: SandboxContext): SandboxControls {
  const workspace = (id: string | undefined) => {
    const ws = sb.store.workspaces.get(id ?? 'ws_demo');
    if (!ws) throw notFound('workspace', id ?? 'ws_demo');
    return ws;
  };
  let workspaceCount = 0;

  const controls: SandboxControls = {
    injectFaults: (spec) => {
      const fault = sb.faults.add(spec);
      return sb.faults.info().find((f) => f.id === fault.id)!;
    },
    clearFaults: () => sb.faults.clear(),
    faults: () => sb.faults.info(),
    setDuplicateDeliveries: (n) => {
      if (!Number.isInteger(n) || n < 1) throw validationError('duplicateDeliveries', 'duplicateDeliveries must be an integer >= 1.');
      sb.deliveries.duplicates = n;
    },
    setListShape: (shape) => void (sb.settings.listShape = oneOf(LIST_SHAPES, shape, 'listShape')),
    setBulkResponseShape: (shape) =>
      void (sb.settings.bulkResponseShape = oneOf(BULK_RESPONSE_SHAPES, shape, 'bulkResponseShape')),
    setRecipientOrder: (order) => void (sb.settings.recipientOrder = oneOf(RECIPIENT_ORDERS, order, 'recipientOrder')),
    setTimestampPrecision: (precision) =>
      void (sb.settings.timestampPrecision = oneOf(TIMESTAMP_PRECISIONS, precision, 'timestampPrecision')),
    setCursorKind: (kind) => void (sb.settings.cursorKind = oneOf(CURSOR_KINDS, kind, 'cursorKind')),
    setCursorExpiry: (expiry) => void (sb.settings.cursorExpiry = checkCursorExpiry(expiry)),
    settleMail: () => sb.mail.settle(),
    setTestDelivery: (shape) => void (sb.settings.testDelivery = oneOf(TEST_DELIVERY_SHAPES, shape, 'testDelivery')),
    settings: () => ({ ...sb.settings, duplicateDeliveries: sb.deliveries.duplicates }),
    counters: () => sb.counters.snapshot(sb.deliveries.pending),
    resetCounters: () => sb.counters.reset(),
    reset: () => resetContext(sb),
    createWorkspace: (input = {}) => {
      const quota = input.quota ?? sb.options.quota;
      if (!Number.isInteger(quota) || quota < 0) throw validationError('quota', 'quota must be an integer >= 0.');
      if (input.username !== undefined && typeof input.username !== 'string') {
        throw validationError('username', 'username must be a string.');
      }
      const id = sb.ids.id('ws_');
      const ws = createWorkspaceRecord(sb.ids, id, input.username ?? `Workspace ${++workspaceCount}`, quota);
      sb.store.workspaces.set(id, ws);
      return { workspaceId: id, apiKey: controls.createApiKey(id).apiKey };
    },
    createApiKey: (workspaceId, opts = {}) => {
      const ws = workspace(workspaceId);
      const now = Date.now();
      if (!opts.expired && sb.store.activeKeyCount(ws.id, now) >= MAX_ACTIVE_KEYS) {
        throw new ApiError('PLAN_LIMIT_EXCEEDED', `A workspace can hold at most ${MAX_ACTIVE_KEYS} active API keys.`, {
          limit: MAX_ACTIVE_KEYS,
          resource: 'api keys',
        });
      }
      const apiKey = sb.ids.apiKey();
      const expiresAt = opts.expired ? now - 1000 : null;
      sb.store.apiKeys.set(apiKey, { key: apiKey, workspaceId: ws.id, createdAt: new Date(now).toISOString(), expiresAt });
      return { apiKey, expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString() };
    },
    expireApiKey: (apiKey) => {
      const key = sb.store.apiKeys.get(apiKey);
      if (!key) throw notFound('api key', apiKey);
      key.expiresAt = Date.now() - 1000;
    },
    quota: (workspaceId) => {
      const ws = workspace(workspaceId);
      return { quota: ws.quota, used: ws.used, remaining: ws.quota - ws.used };
    },
    viewCertificate: (shareToken, viewer = {}) =>
      recordView(sb, shareToken, { userAgent: viewer.userAgent ?? '', referer: viewer.referer ?? '', ip: viewer.ip ?? '' }),
    deliveries: () => sb.deliveries.log.slice(),
    waitForDeliveries: async (predicate, timeoutMs) => (await sb.deliveries.waitFor(predicate, timeoutMs)).slice(),
    subscriptions: (workspaceId) =>
      [...sb.store.subscriptions.values()]
        .filter((s) => workspaceId === undefined || s.workspaceId === workspaceId)
        .map((s) => ({
          id: s.id,
          workspaceId: s.workspaceId,
          url: s.url,
          events: [...s.events],
          createdAt: s.createdAt,
          secret: s.secret,
          previousSecret: s.previousSecret,
          previousSecretExpiresAt:
            s.previousSecretExpiresAt === null ? null : new Date(s.previousSecretExpiresAt).toISOString(),
        })),
    events: () => sb.events.log.slice(),
    certificates: (batchId) =>
      [...sb.store.recipients.values()].filter((r) => r.recipient.batchId === batchId).map((r) => ({ ...r.recipient })),
  };
  return controls;
}
