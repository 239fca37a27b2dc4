import type { BatchStatus } from '@certificate-service/sdk';
import { ApiError, notFound, validationError } from '../errors';
import { shapeList } from '../list-shapes';
import { paginate, parsePageQuery } from '../pagination';
import type { BatchRecord } from '../store';
import { objectBody, requiredString } from '../validate';
import { batchView } from '../views';
import type { ApiRequest, ApiRoute } from './types';
import { SUCCESS_STATUS } from '../choices';

const STATUS_FILTERS = ['active', 'archived', 'all'] as const;

export function requireBatch({ sb, ws }: ApiRequest, id: string): BatchRecord {
  const batch = sb.store.batchOf(ws, id);
  if (!batch) throw notFound('batch', id);
  return batch;
}

/** Archive/unarchive follow the state table of spec section 3; any other move is a CONFLICT. */
function transition(r: ApiRequest, id: string, from: BatchStatus, to: BatchStatus) {
  const batch = requireBatch(r, id);
  if (batch.status !== from) {
    throw new ApiError('CONFLICT', `Batch ${batch.id} is already ${batch.status}.`, {
      batchId: batch.id,
      status: batch.status,
    });
  }
  batch.status = to;
  return { status: 200, body: batchView(batch) };
}

export const batchRoutes: ApiRoute[] = [
  {
    method: 'GET',
    pattern: '/batches',
    handler: ({ sb, ws, query }) => {
      const status = query.get('status') ?? 'active';
      if (!(STATUS_FILTERS as readonly string[]).includes(status)) {
        throw validationError('status', `status must be one of ${STATUS_FILTERS.join(', ')}; got "${status}".`);
      }
      const page = paginate(ws.batches, 'batches', parsePageQuery(query, 'batches'), (b) =>
        status === 'all' ? true : b.status === status,
      );
      return { status: 200, body: shapeList(sb.settings.listShape, 'batches', page.items.map(batchView), page.nextCursor) };
    },
  },
  {
    method: 'POST',
    pattern: '/batches',
    handler: ({ sb, ws, body }) => {
      const input = objectBody(body);
      const title = requiredString(input, 'title');
      const designId = requiredString(input, 'designId');
      if (!ws.designs.some((d) => d.id === designId)) {
        throw validationError('designId', `designId "${designId}" is not a design of this workspace; see GET /designs.`);
      }
      const batch: BatchRecord = {
        seq: sb.ids.nextSeq(),
        workspaceId: ws.id,
        id: sb.ids.id('batch_'),
        title,
        designId,
        status: 'active',
        createdAt: new Date().toISOString(),
        recipients: [],
      };
      sb.store.addBatch(ws, batch);
      return { status: SUCCESS_STATUS.createBatch, body: batchView(batch) };
    },
  },
  {
    method: 'GET',
    pattern: '/batches/:id',
    handler: (r, { id }) => ({ status: 200, body: batchView(requireBatch(r, id)) }),
  },
  {
    method: 'POST',
    pattern: '/batches/:id/archive',
    handler: (r, { id }) => transition(r, id, 'active', 'archived'),
  },
  {
    method: 'POST',
    pattern: '/batches/:id/unarchive',
    handler: (r, { id }) => transition(r, id, 'archived', 'active'),
  },
];
