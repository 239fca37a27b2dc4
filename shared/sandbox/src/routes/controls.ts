// /__sandbox/...: the controls over HTTP, for tools that do not run in-process (e.g. an
// n8n or Zapier e2e run). No auth, not rate limited, not counted.
import type { SandboxControls } from '../controls';
import { validationError } from '../errors';
import type { FaultSpec } from '../faults';
import { Router } from '../router';
import type { ListShape, BulkResponseShape } from '../types';
import { objectBody } from '../validate';

export interface ControlRequest {
  controls: SandboxControls;
  info: () => unknown;
  query: URLSearchParams;
  body: unknown;
}

const ok = (body: unknown, status = 200) => ({ status, body });
const none = { status: 204 };

export function createControlRouter(): Router<ControlRequest> {
  return new Router<ControlRequest>([
    { method: 'GET', pattern: '/', handler: (c) => ok(c.info()) },
    { method: 'GET', pattern: '/counters', handler: (c) => ok(c.controls.counters()) },
    { method: 'POST', pattern: '/counters/reset', handler: (c) => (c.controls.resetCounters(), none) },
    { method: 'POST', pattern: '/reset', handler: (c) => (c.controls.reset(), none) },
    { method: 'GET', pattern: '/faults', handler: (c) => ok(c.controls.faults()) },
    {
      method: 'POST',
      pattern: '/faults',
      handler: (c) => ok(c.controls.injectFaults(objectBody(c.body) as unknown as FaultSpec), 201),
    },
    { method: 'DELETE', pattern: '/faults', handler: (c) => (c.controls.clearFaults(), none) },
    { method: 'GET', pattern: '/settings', handler: (c) => ok(c.controls.settings()) },
    {
      // Any subset of { listShape, bulkResponseShape, recipientOrder, timestampPrecision,
      // cursorKind, cursorExpiry, testDelivery, duplicateDeliveries }.
      method: 'PUT',
      pattern: '/settings',
      handler: (c) => {
        const body = objectBody(c.body);
        if (body.listShape !== undefined) c.controls.setListShape(body.listShape as ListShape);
        if (body.bulkResponseShape !== undefined) c.controls.setBulkResponseShape(body.bulkResponseShape as BulkResponseShape);
        if (body.recipientOrder !== undefined) c.controls.setRecipientOrder(body.recipientOrder as never);
        if (body.timestampPrecision !== undefined) c.controls.setTimestampPrecision(body.timestampPrecision as never);
        if (body.cursorKind !== undefined) c.controls.setCursorKind(body.cursorKind as never);
        if (body.cursorExpiry !== undefined) c.controls.setCursorExpiry(body.cursorExpiry as never);
        if (body.testDelivery !== undefined) c.controls.setTestDelivery(body.testDelivery as never);
        if (body.duplicateDeliveries !== undefined) c.controls.setDuplicateDeliveries(body.duplicateDeliveries as number);
        return ok(c.controls.settings());
      },
    },
    {
      method: 'POST',
      pattern: '/workspaces',
      handler: (c) => ok(c.controls.createWorkspace(objectBody(c.body) as { username?: string; quota?: number }), 201),
    },
    {
      method: 'POST',
      pattern: '/workspaces/:id/api-keys',
      handler: (c, { id }) => ok(c.controls.createApiKey(id, { expired: objectBody(c.body).expired === true }), 201),
    },
    { method: 'GET', pattern: '/workspaces/:id/quota', handler: (c, { id }) => ok(c.controls.quota(id)) },
    {
      method: 'POST',
      pattern: '/api-keys/expire',
      handler: (c) => {
        const apiKey = objectBody(c.body).apiKey;
        if (typeof apiKey !== 'string') throw validationError('apiKey', 'apiKey is required.');
        c.controls.expireApiKey(apiKey);
        return none;
      },
    },
    { method: 'POST', pattern: '/mail/settle', handler: (c) => (c.controls.settleMail(), none) },
    { method: 'GET', pattern: '/deliveries', handler: (c) => ok(c.controls.deliveries()) },
    { method: 'GET', pattern: '/events', handler: (c) => ok(c.controls.events()) },
    { method: 'GET', pattern: '/batches/:id/certificates', handler: (c, { id }) => ok(c.controls.certificates(id)) },
    {
      method: 'GET',
      pattern: '/subscriptions',
      handler: (c) => ok(c.controls.subscriptions(c.query.get('workspaceId') ?? undefined)),
    },
  ]);
}
