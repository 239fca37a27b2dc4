// Local, in-memory Certificate Service for tests, demos and benchmarks.
// `const sb = await createSandbox(); ... await sb.close();` — see README.md.
import type { AddressInfo } from 'node:net';
import { isWildcardHost, serverHostNames, type Workspace } from '@certificate-service/sdk';
import { createContext } from './context';
import { CURSOR_KINDS, FAILED_SEND_TIMES, TIMESTAMP_PRECISIONS } from './choices';
import { checkCursorExpiry, createControls, type SandboxControls } from './controls';
import { validationError } from './errors';
import { DEMO_API_KEY, DEMO_WORKSPACE } from './seed';
import { API_PREFIX, createServer } from './server';
import { DEFAULT_OPTIONS, LIST_SHAPES, RECIPIENT_ORDERS, type ResolvedOptions, type SandboxOptions } from './types';

export type { SandboxControls, SubscriptionInfo, QuotaInfo, SettingsInfo } from './controls';
export type { CountersSnapshot } from './counters';
export type { FaultSpec, FaultKind, FaultInfo } from './faults';
export { KNOWN_LIST_SHAPES, UNKNOWN_LIST_SHAPES } from './types';
export type { SandboxOptions, ListShape, BulkResponseShape, RecipientOrder, DeliveryAttempt, EventLogEntry, RateLimitConfig } from './types';
export type { TimestampPrecision, CursorKind, CursorExpiry, FailedSendTime } from './choices';
export { RECIPIENT_ORDERS, TIMESTAMP_PRECISIONS, CURSOR_KINDS, FAILED_SEND_TIMES } from './choices';
export { DEMO_API_KEY, DEMO_WORKSPACE, DESIGNS } from './seed';
export { RETRY_DELAYS_MS, MAX_ATTEMPTS } from './deliveries';
export { stopWithParent } from './serve';
export { BOUNCE_DOMAIN, BOUNCE_ERROR, mailOutcome } from './mail';

export interface Sandbox {
  /** Origin, e.g. http://127.0.0.1:4010 (the public viewer lives at `${url}/v/<token>`). */
  url: string;
  /** `${url}/api/v1` */
  baseUrl: string;
  /** The demo workspace's key. */
  apiKey: string;
  workspace: Workspace;
  controls: SandboxControls;
  options: ResolvedOptions;
  close(): Promise<void>;
}

/** With `seed: false` there is no demo workspace, hence no demo key. */
export interface EmptySandbox extends Omit<Sandbox, 'apiKey' | 'workspace'> {
  apiKey: null;
  workspace: null;
}

function resolveOptions(options: SandboxOptions): ResolvedOptions {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const o: ResolvedOptions = { ...DEFAULT_OPTIONS, ...defined };
  if (!(LIST_SHAPES as readonly string[]).includes(o.listShape)) throw validationError('listShape', `listShape must be one of ${LIST_SHAPES.join(', ')}.`);
  if (!(RECIPIENT_ORDERS as readonly string[]).includes(o.recipientOrder)) throw validationError('recipientOrder', `recipientOrder must be one of ${RECIPIENT_ORDERS.join(', ')}.`);
  if (!(TIMESTAMP_PRECISIONS as readonly string[]).includes(o.timestampPrecision)) {
    throw validationError('timestampPrecision', `timestampPrecision must be one of ${TIMESTAMP_PRECISIONS.join(', ')}.`);
  }
  if (!(CURSOR_KINDS as readonly string[]).includes(o.cursorKind)) throw validationError('cursorKind', `cursorKind must be one of ${CURSOR_KINDS.join(', ')}.`);
  if (!(FAILED_SEND_TIMES as readonly string[]).includes(o.failedSendTime)) throw validationError('failedSendTime', `failedSendTime must be one of ${FAILED_SEND_TIMES.join(', ')}.`);
  o.cursorExpiry = checkCursorExpiry(o.cursorExpiry);
  if (typeof o.clock !== 'function') throw validationError('clock', 'clock must be a function returning epoch milliseconds.');
  if (!(o.timeScale > 0)) throw validationError('timeScale', 'timeScale must be > 0.');
  if (!(o.deliveryConcurrency === Infinity || (Number.isInteger(o.deliveryConcurrency) && o.deliveryConcurrency >= 1))) {
    throw validationError('deliveryConcurrency', 'deliveryConcurrency must be a whole number >= 1 (or Infinity: no cap).');
  }
  if (!Array.isArray(o.allowedHosts) || !o.allowedHosts.every((h) => typeof h === 'string' && /^([a-z0-9.-]+|\[?[0-9a-f:.]+\]?)$/i.test(h))) {
    throw validationError('allowedHosts', 'allowedHosts must be a list of host names (e.g. ["host.docker.internal"]), without a port or a scheme.');
  }
  if (!Number.isInteger(o.quota) || o.quota < 0) throw validationError('quota', 'quota must be an integer >= 0.');
  if (o.rateLimit && !(o.rateLimit.limit >= 1 && o.rateLimit.windowMs >= 1)) {
    throw validationError('rateLimit', 'rateLimit needs limit >= 1 and windowMs >= 1 (or false to disable).');
  }
  return o;
}

export function createSandbox(options?: SandboxOptions & { seed?: true }): Promise<Sandbox>;
export function createSandbox(options: SandboxOptions & { seed: false }): Promise<EmptySandbox>;
export function createSandbox(options?: SandboxOptions): Promise<Sandbox | EmptySandbox>;
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox | EmptySandbox> {
  const resolved = resolveOptions(options);
  const sb = createContext(resolved);
  const controls = createControls(sb);
  let baseUrl = '';
  const apiKey = resolved.seed ? DEMO_API_KEY : null;
  const workspace = resolved.seed ? { ...DEMO_WORKSPACE } : null;
  const info = () => ({ url: sb.origin, baseUrl, apiKey, workspace, settings: controls.settings() });
  const server = createServer(sb, controls, info);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  sb.origin = `http://${urlHost(resolved.host)}:${port}`;
  sb.hostNames = serverHostNames(resolved.host, port, resolved.allowedHosts);
  baseUrl = sb.origin + API_PREFIX;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      sb.timers.clearAll();
      sb.deliveries.close();
      server.close(() => resolve());
      server.closeAllConnections();
    }));

  return { url: sb.origin, baseUrl, apiKey, workspace, controls, options: resolved, close } as Sandbox | EmptySandbox;
}

/** Wildcard binds are reached through loopback; IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  if (isWildcardHost(host)) return host.includes(':') ? '[::1]' : '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
export { EMAIL_STATUSES, ERROR_STATUS, SUCCESS_STATUS, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_BULK_ITEMS, MAX_SUBSCRIPTIONS, type EmailStatus } from './choices';
